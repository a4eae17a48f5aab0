package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/harnest/harnest/internal/contract"
	"gopkg.in/yaml.v3"
)

// maxCasesBytes bounds a cases file, and a schema file it names.
const maxCasesBytes = 4 << 20

// Problems are what is wrong with a cases file: one line each, with the
// field's path.
type Problems struct {
	File  string
	Lines []string
}

func (p *Problems) Error() string {
	return fmt.Sprintf("%s is not a valid cases file:\n  %s", p.File, strings.Join(p.Lines, "\n  "))
}

func (p *Problems) add(path, format string, args ...any) {
	p.Lines = append(p.Lines, path+": "+fmt.Sprintf(format, args...))
}

// Load reads and checks a cases file. Its error is a *Problems that lists
// every problem, or the reason the file could not be read.
func Load(path string) (*File, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data, filepath.Dir(path))
	if err != nil {
		var probs *Problems
		if errors.As(err, &probs) {
			probs.File = path
		}
		return nil, err
	}
	f.Path = path
	return f, nil
}

// Parse reads a cases file's content; dir is where the schema files it
// names are read.
func Parse(data []byte, dir string) (*File, error) {
	probs := &Problems{File: "cases file"}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true) // an unknown key is a mistake, named by the decoder
	var f File
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("the file is empty; it must be a mapping with cases")
		}
		probs.add("(file)", "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil, probs
	}
	f.Dir = dir
	f.check(probs)
	if len(probs.Lines) > 0 {
		return nil, probs
	}
	return &f, nil
}

// check validates the file and compiles its matchers.
func (f *File) check(probs *Problems) {
	if len(f.Cases) == 0 {
		probs.add("cases", "must list at least one case")
	}
	if j := f.Judge; j != nil {
		j.BaseURL, j.Model, j.APIKey = expandEnv("judge.baseUrl", j.BaseURL, probs), expandEnv("judge.model", j.Model, probs), expandEnv("judge.apiKey", j.APIKey, probs)
		if !strings.HasPrefix(j.BaseURL, "http://") && !strings.HasPrefix(j.BaseURL, "https://") {
			probs.add("judge.baseUrl", "must be an http(s) URL such as http://127.0.0.1:11434/v1")
		}
		if j.Model == "" {
			probs.add("judge.model", "must name the judge's model")
		}
	}
	names := map[string]bool{}
	for i := range f.Cases {
		c := &f.Cases[i]
		path := fmt.Sprintf("cases[%d]", i)
		switch {
		case strings.TrimSpace(c.Name) == "":
			probs.add(path+".name", "must name the case")
		case names[c.Name]:
			probs.add(path+".name", "%q names another case too; names must be unique", c.Name)
		}
		names[c.Name] = true
		for action, answer := range c.Approvals {
			if answer != "approve" && answer != "deny" {
				probs.add(path+".approvals."+action, `must be "approve" or "deny", got %q`, answer)
			}
		}
		if len(c.Turns) == 0 {
			probs.add(path+".turns", "must list at least one turn")
		}
		for j := range c.Turns {
			f.checkTurn(&c.Turns[j], fmt.Sprintf("%s.turns[%d]", path, j), probs)
		}
	}
}

// checkTurn validates one turn and compiles its expectations.
func (f *File) checkTurn(t *Turn, path string, probs *Problems) {
	switch in := t.Input.(type) {
	case string:
		if strings.TrimSpace(in) == "" {
			probs.add(path+".input", "must not be blank")
		}
		t.input.text = in
	case map[string]any:
		b, err := json.Marshal(in)
		if err != nil {
			probs.add(path+".input", "cannot be written as JSON: %v", err)
		}
		t.input = inputValue{text: string(b), typed: b}
	case nil:
		probs.add(path+".input", "is required: text, or a mapping for an agent with an input schema")
	default:
		probs.add(path+".input", "must be text or a mapping, got %T", in)
	}
	e := &t.Expect
	switch e.Status {
	case "":
		e.Status = "completed"
	case "completed", "failed", "denied", "cancelled":
	default:
		probs.add(path+".expect.status", `must be completed, failed, denied or cancelled, got %q`, e.Status)
	}
	for i, expr := range e.Regex {
		re, err := regexp.Compile(expr)
		if err != nil {
			probs.add(fmt.Sprintf("%s.expect.regex[%d]", path, i), "does not compile: %v", err)
			continue
		}
		e.regexes = append(e.regexes, re)
	}
	if e.Schema != nil {
		e.schema = f.compileSchema(path+".expect.schema", e.Schema, probs)
	}
	if e.Tools != nil {
		e.Tools.check(path+".expect.tools", probs)
	}
	if r := e.Judge; r != nil {
		if strings.TrimSpace(r.Rubric) == "" {
			probs.add(path+".expect.judge.rubric", "must say what the judge looks for")
		}
		if r.Threshold != nil && (*r.Threshold < 0 || *r.Threshold > 1) {
			probs.add(path+".expect.judge.threshold", "must be between 0 and 1, got %v", *r.Threshold)
		}
	}
}

// check validates a trajectory and compiles its argument matchers.
func (t *Tools) check(path string, probs *Problems) {
	switch t.Match {
	case "":
		t.Match = MatchExact
	case MatchExact, MatchInOrder, MatchAnyOrder:
	default:
		probs.add(path+".match", "must be exact, inOrder or anyOrder, got %q", t.Match)
	}
	for i := range t.Calls {
		c := &t.Calls[i]
		cpath := fmt.Sprintf("%s.calls[%d]", path, i)
		if c.Name == "" {
			probs.add(cpath+".name", "must name the tool")
		}
		for _, name := range sortedKeys(c.Args) {
			m, err := newArgMatcher(name, c.Args[name])
			if err != nil {
				probs.add(cpath+".args."+name, "%v", err)
				continue
			}
			c.args = append(c.args, m)
		}
	}
}

// compileSchema compiles an inline schema (a mapping, true or false) or
// the JSON or YAML file a string names, beside the cases file.
func (f *File) compileSchema(path string, v any, probs *Problems) *contract.Schema {
	if name, ok := v.(string); ok {
		file := name
		if !filepath.IsAbs(file) {
			file = filepath.Join(f.Dir, file)
		}
		data, err := readBounded(file)
		if err != nil {
			probs.add(path, "%v", err)
			return nil
		}
		if err := yaml.Unmarshal(data, &v); err != nil {
			probs.add(path, "%s is not a JSON or YAML schema: %v", name, err)
			return nil
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		probs.add(path, "cannot be written as JSON: %v", err)
		return nil
	}
	s, err := contract.Compile("expected schema", raw)
	if err != nil {
		probs.add(path, "%v", err)
		return nil
	}
	return s
}

// readBounded reads a file of at most maxCasesBytes.
func readBounded(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxCasesBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if len(data) > maxCasesBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxCasesBytes)
	}
	return data, nil
}

// envRef is a scalar that is exactly "${NAME}" or "${NAME:-default}", as
// in config.yaml.
var envRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}$`)

// expandEnv resolves an exact environment reference; a missing variable
// without a default is a problem that names the variable, never a value.
func expandEnv(path, s string, probs *Problems) string {
	m := envRef.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	if v := os.Getenv(m[1]); v != "" {
		return v
	}
	if m[2] != "" {
		return m[3]
	}
	probs.add(path, "environment variable %s is not set; export it or give a default as ${%s:-value}", m[1], m[1])
	return ""
}
