package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// An argument matcher checks one argument of a tool call. In a cases file
// an argument's matcher is a value, which the argument must equal (as
// JSON, so 2 equals 2.0 and key order does not matter), or a mapping of
// one of equals, contains and regex:
//
//	args:
//	  city: Lisbon                  # equals
//	  days: {equals: 2}
//	  query: {contains: lisbon}     # a substring of the argument (a string's text, else its JSON)
//	  note: {regex: "^[A-Z]"}
//	  /stops/0/name: Belém          # a JSON Pointer reaches into the arguments
type argMatcher struct {
	key  string // an argument's name, or a JSON Pointer starting with "/"
	kind string // equals, contains or regex
	want any    // equals: the value, as decoded JSON
	text string // contains: the substring
	re   *regexp.Regexp
}

// newArgMatcher reads the matcher of argument key from the cases file.
func newArgMatcher(key string, v any) (argMatcher, error) {
	m := argMatcher{key: key, kind: "equals"}
	if obj, ok := v.(map[string]any); ok && len(obj) == 1 {
		for kind, arg := range obj {
			switch kind {
			case "equals":
				v = arg
			case "contains":
				s, ok := arg.(string)
				if !ok {
					return m, fmt.Errorf("contains must be a string, got %T", arg)
				}
				m.kind, m.text = kind, s
				return m, nil
			case "regex":
				s, ok := arg.(string)
				if !ok {
					return m, fmt.Errorf("regex must be a string, got %T", arg)
				}
				re, err := regexp.Compile(s)
				if err != nil {
					return m, fmt.Errorf("regex does not compile: %v", err)
				}
				m.kind, m.re = kind, re
				return m, nil
			}
		}
	}
	want, err := normalJSON(v)
	if err != nil {
		return m, err
	}
	m.want = want
	return m, nil
}

// match checks the matcher against a call's arguments (a JSON object);
// the reason says what differed.
func (m argMatcher) match(args map[string]any) (bool, string) {
	got, ok := lookup(args, m.key)
	if !ok {
		return false, fmt.Sprintf("argument %s is missing", m.key)
	}
	switch m.kind {
	case "contains":
		if !strings.Contains(argText(got), m.text) {
			return false, fmt.Sprintf("argument %s = %s does not contain %q", m.key, shortJSON(got), m.text)
		}
	case "regex":
		if !m.re.MatchString(argText(got)) {
			return false, fmt.Sprintf("argument %s = %s does not match /%s/", m.key, shortJSON(got), m.re)
		}
	default:
		if !jsonEqual(got, m.want) {
			return false, fmt.Sprintf("argument %s = %s, want %s", m.key, shortJSON(got), shortJSON(m.want))
		}
	}
	return true, ""
}

// lookup finds an argument by name, or by a JSON Pointer.
func lookup(args map[string]any, key string) (any, bool) {
	if !strings.HasPrefix(key, "/") {
		v, ok := args[key]
		return v, ok
	}
	var cur any = args
	for _, token := range strings.Split(key[1:], "/") {
		token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
		switch node := cur.(type) {
		case map[string]any:
			v, ok := node[token]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscanf(token, "%d", &i); err != nil || i < 0 || i >= len(node) || fmt.Sprint(i) != token {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// argText is a string argument's text, or any other value's JSON.
func argText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// normalJSON is v as JSON decodes it (numbers as float64, maps as
// map[string]any), so YAML and JSON values compare alike.
func normalJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot be written as JSON: %v", err)
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a) // map keys are sorted: equal values give equal bytes
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// shortJSON is a value's JSON, cut to a readable length.
func shortJSON(v any) string {
	b, _ := json.Marshal(v)
	return shorten(string(b), 80)
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// sortedKeys lists a mapping's keys in order, for stable problems.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
