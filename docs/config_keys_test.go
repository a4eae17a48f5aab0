package docs

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// named are the maps of config.yaml whose keys are names the user
// chooses: configuration.md writes them as placeholders.
var named = map[string]string{
	"spec.backend.router.harnesses": "<name>",
	"spec.backend.router.tiers":     "<tier>",
	"server.triggers":               "<name>",
}

// opaque are keys whose values are free-form (JSON Schema): their inner
// keys are not configuration keys.
var opaque = map[string]bool{"parameters": true}

var (
	commentLine = regexp.MustCompile(`^(\s*)# (.*)$`)
	keyLine     = regexp.MustCompile(`^(\s*)(- )?([A-Za-z][A-Za-z0-9]*):(\s.*)?$`)
)

// exampleKeys returns the dotted path of every key config.yaml.example
// shows, set or in a comment. A commented key ("  #   key: v") is read as if
// its "# " were not there, so its indentation places it like a set key.
// Each key line is parsed on its own with yaml.v3, so that the keys of flow
// mappings ({name: ..., kind: ...}) count too. Lists add "[]" to their
// key's path; the keys of named maps become their placeholder.
func exampleKeys(t *testing.T, text string) map[string]bool {
	t.Helper()
	type level struct {
		indent int
		path   string
	}
	var stack []level
	keys := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		if m := commentLine.FindStringSubmatch(line); m != nil {
			line = m[1] + m[2]
		}
		m := keyLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent, item, key := len(m[1]), m[2] != "", m[3]
		if item {
			indent += 2
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		parent := ""
		if len(stack) > 0 {
			if item && !strings.HasSuffix(stack[len(stack)-1].path, "[]") {
				stack[len(stack)-1].path += "[]"
			}
			parent = stack[len(stack)-1].path
		}
		path := join(parent, key)
		keys[path] = true
		stack = append(stack, level{indent, path})

		var node yaml.Node
		body := strings.TrimPrefix(strings.TrimSpace(line), "- ")
		if err := yaml.Unmarshal([]byte(body), &node); err != nil {
			t.Fatalf("config.yaml.example line %d (%q) is not YAML on its own: %v", i+1, body, err)
		}
		if len(node.Content) == 1 && len(node.Content[0].Content) == 2 {
			flowKeys(path, key, node.Content[0].Content[1], keys)
		}
	}
	return keys
}

// flowKeys adds the keys of a mapping value under path.
func flowKeys(path, key string, v *yaml.Node, keys map[string]bool) {
	if v.Kind != yaml.MappingNode || opaque[key] {
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i].Value
		p := join(path, k)
		keys[p] = true
		flowKeys(p, k, v.Content[i+1], keys)
	}
}

// join appends key to parent, as the parent's placeholder when the
// parent is a named map.
func join(parent, key string) string {
	if ph, ok := named[parent]; ok {
		key = ph
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// setKeys returns the paths of the keys config.yaml.example sets (not
// those in comments), from yaml.v3's parse of the whole file.
func setKeys(n *yaml.Node, parent string, keys map[string]bool) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			setKeys(c, parent, keys)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			p := join(parent, k)
			keys[p] = true
			if !opaque[k] {
				setKeys(n.Content[i+1], p, keys)
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			setKeys(c, parent+"[]", keys)
		}
	}
}

// docKeys returns the keys configuration.md's tables name: the first
// column of each row, in backticks.
func docKeys(t *testing.T, text string) map[string]bool {
	t.Helper()
	row := regexp.MustCompile("^\\| `([^`]+)` \\|")
	keys := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if keys[m[1]] {
			t.Errorf("configuration.md line %d: %s is listed twice", i+1, m[1])
		}
		keys[m[1]] = true
	}
	return keys
}

// TestConfigurationListsEveryKey checks that docs/configuration.md lists
// every key of config.yaml.example, set or in a comment, and no other.
func TestConfigurationListsEveryKey(t *testing.T) {
	example, err := os.ReadFile("../config.yaml.example")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	want := exampleKeys(t, string(example))

	// The line reader must see at least every key yaml.v3 sees set.
	var root yaml.Node
	if err := yaml.Unmarshal(example, &root); err != nil {
		t.Fatalf("config.yaml.example: %v", err)
	}
	set := map[string]bool{}
	setKeys(&root, "", set)
	for k := range set {
		if !want[k] {
			t.Errorf("the key reader missed %s, which config.yaml.example sets", k)
		}
	}
	if len(want) < 100 {
		t.Fatalf("read only %d keys from config.yaml.example; the key reader is broken", len(want))
	}

	got := docKeys(t, string(doc))
	for _, k := range sorted(want) {
		if !got[k] {
			t.Errorf("docs/configuration.md does not list %s (a key of config.yaml.example): add a row for it (key, default, meaning)", k)
		}
	}
	for _, k := range sorted(got) {
		if !want[k] {
			t.Errorf("docs/configuration.md lists %s, which config.yaml.example does not have", k)
		}
	}
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
