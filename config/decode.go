package config

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxConfigNodes bounds the nodes visited while decoding config.yaml, aliases
// included, so that a small file cannot expand into a huge one.
const maxConfigNodes = 100_000

var byteSizeType = reflect.TypeFor[ByteSize]()

// decoder walks a yaml.Node tree against a Go struct, using the yaml tags of
// the struct fields. It records a problem for every unknown key, duplicate
// key, non-string key and value of the wrong type, and keeps going so that
// one load reports them all.
type decoder struct {
	file   string
	lookup func(string) (string, bool)
	probs  *Problems
	nodes  int // nodes visited so far

	set map[string]bool   // paths given a non-null value
	bad map[string]bool   // paths that already have a problem
	env map[string]string // paths whose value came from ${NAME}, to NAME
}

func newDecoder(file string, lookup func(string) (string, bool), probs *Problems) *decoder {
	return &decoder{
		file:   file,
		lookup: lookup,
		probs:  probs,
		set:    map[string]bool{},
		bad:    map[string]bool{},
		env:    map[string]string{},
	}
}

func (d *decoder) problem(path, format string, args ...any) {
	d.bad[path] = true
	d.probs.add(d.file, path, fmt.Sprintf(format, args...))
}

// decode stores node n into v, which must be settable.
func (d *decoder) decode(n *yaml.Node, path string, v reflect.Value) {
	d.nodes++
	if d.nodes == maxConfigNodes+1 {
		d.problem(path, "document is too large after expanding aliases (more than %d nodes)", maxConfigNodes)
	}
	if d.nodes > maxConfigNodes {
		return
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return // absent: the zero value, replaced by a default later
	}
	if d.special(n, path, v) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		d.decode(n, path, elem.Elem())
		v.Set(elem)
	case reflect.Struct:
		d.structure(n, path, v)
	case reflect.Slice:
		d.list(n, path, v)
	case reflect.Map:
		d.mapping(n, path, v)
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		d.scalar(n, path, v)
	default:
		// Only reachable if someone adds a field of a new kind to config.go.
		d.problem(path, "internal error: cannot decode into a Go %s", v.Type())
	}
}

func (d *decoder) structure(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.wrongType(n, path, "a mapping")
		return
	}
	d.set[path] = true
	fields, names := yamlFields(v.Type())
	for e := range mappingEntries(n, path, d.problem) {
		index, ok := fields[e.key]
		if !ok {
			d.problem(e.path, "unknown field (allowed: %s)", strings.Join(names, ", "))
			continue
		}
		d.decode(e.value, e.path, v.Field(index))
	}
}

func (d *decoder) list(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.SequenceNode {
		d.wrongType(n, path, "a list")
		return
	}
	d.set[path] = true
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, indexPath(path, i), s.Index(i))
	}
	v.Set(s)
}

func (d *decoder) mapping(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.wrongType(n, path, "a mapping")
		return
	}
	d.set[path] = true
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	for e := range mappingEntries(n, path, d.problem) {
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(e.value, e.path, elem)
		m.SetMapIndex(reflect.ValueOf(e.key), elem)
	}
	v.Set(m)
}

// resolve returns the text of a scalar, replacing an exact ${NAME} reference
// by the variable's value. fromEnv reports a replaced value, whose text must
// never appear in a message.
func (d *decoder) resolve(n *yaml.Node, path string) (text string, fromEnv, ok bool) {
	ref, isRef := envRef(n.Value)
	if !isRef {
		return n.Value, false, true
	}
	value, found := d.lookup(ref.name)
	if ref.hasDefault && value == "" {
		value, found = ref.fallback, true
	}
	if !found {
		d.problem(path, "%s", unsetMessage(ref.name))
		return "", true, false
	}
	d.env[path] = ref.name
	return value, true, true
}

func (d *decoder) scalar(n *yaml.Node, path string, v reflect.Value) {
	want := scalarWant(v.Kind())
	if n.Kind != yaml.ScalarNode {
		d.wrongType(n, path, want)
		return
	}
	text, fromEnv, ok := d.resolve(n, path)
	if !ok {
		return
	}
	if fromEnv {
		d.envScalar(text, path, v, want)
		return
	}
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		if tag != "!!str" && tag != "!!timestamp" {
			d.problem(path, "expected a string, got %s; quote the value to keep it as text", describeNode(n, isSecretPath(path)))
			return
		}
		v.SetString(text)
	case reflect.Bool:
		var b bool
		if tag != "!!bool" || n.Decode(&b) != nil {
			d.wrongType(n, path, want)
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		var i int64
		if tag != "!!int" {
			d.wrongType(n, path, want)
			return
		}
		if n.Decode(&i) != nil || v.OverflowInt(i) {
			d.problem(path, "integer is out of range")
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		var f float64
		if (tag != "!!int" && tag != "!!float") || n.Decode(&f) != nil {
			d.wrongType(n, path, want)
			return
		}
		v.SetFloat(f)
	}
	d.set[path] = true
}

// envScalar converts the value of an environment variable to the field's
// type. Booleans must be exactly "true" or "false". Messages name the
// variable, never its value.
func (d *decoder) envScalar(text, path string, v reflect.Value, want string) {
	name := d.env[path]
	fail := func() { d.problem(path, "expected %s, but the value of ${%s} is not", want, name) }
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		switch text {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			fail()
			return
		}
	case reflect.Int, reflect.Int64:
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil || v.OverflowInt(i) {
			fail()
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			fail()
			return
		}
		v.SetFloat(f)
	}
	d.set[path] = true
}

func (d *decoder) byteSize(n *yaml.Node, path string, v reflect.Value) {
	var size ByteSize
	if n.Kind != yaml.ScalarNode {
		d.wrongType(n, path, "an integer or a size such as \"1MiB\"")
		return
	}
	text, fromEnv, ok := d.resolve(n, path)
	if !ok {
		return
	}
	if fromEnv {
		parsed, err := ParseByteSize(text)
		if err != nil {
			d.problem(path, "the value of ${%s} is not a valid size: %s", d.env[path], err)
			return
		}
		size = parsed
	} else if err := size.UnmarshalYAML(n); err != nil {
		d.problem(path, "%s", err)
		return
	}
	v.SetInt(int64(size))
	d.set[path] = true
}

func (d *decoder) wrongType(n *yaml.Node, path, want string) {
	d.problem(path, "expected %s, got %s", want, describeNode(n, isSecretPath(path)))
}

func scalarWant(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	default:
		return "a string"
	}
}

// yamlFields maps the yaml names of a struct's fields to their indexes, and
// lists the names in declaration order for messages.
func yamlFields(t reflect.Type) (map[string]int, []string) {
	fields := map[string]int{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = i
		names = append(names, name)
	}
	return fields, names
}

// isSecretPath reports fields whose literal text must never be shown in a
// message: bearer tokens, the Redis URL (it may hold a password) and the
// environment given to an exec backend.
func isSecretPath(path string) bool {
	switch {
	case strings.HasPrefix(path, "auth.tokens[") && strings.HasSuffix(path, "].token"):
		return true
	case path == "store.redis.url", path == "auth.jwt.hs256Secret":
		return true
	case strings.HasPrefix(path, "spec.backend.exec.env."):
		return true
	case path == "spec.backend.model.apiKey", strings.HasPrefix(path, "spec.backend.model.headers."), path == "spec.backend.a2a.token":
		return true
	case strings.HasPrefix(path, "spec.mcpServers[") && (strings.Contains(path, "].env.") || strings.Contains(path, "].headers.")):
		return true
	case strings.HasPrefix(path, "spec.tools[") && strings.Contains(path, "].exec.env."):
		return true
	}
	return false
}
