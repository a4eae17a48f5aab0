package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"gopkg.in/yaml.v3"
)

// parseDocument parses data as exactly one YAML document and returns the
// document's root node. Problems are recorded against file.
func parseDocument(file string, data []byte, probs *Problems) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			probs.add(file, "", "file has no YAML document; it must be a mapping of keys to values")
			return nil, false
		}
		probs.add(file, "", "invalid YAML: "+yamlErrorText(err))
		return nil, false
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		probs.add(file, "", "invalid YAML after the first document: "+yamlErrorText(err))
		return nil, false
	default:
		probs.add(file, "", `file holds more than one YAML document; keep a single document (remove the extra "---" separators)`)
		return nil, false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		probs.add(file, "", "file has no YAML document; it must be a mapping of keys to values")
		return nil, false
	}
	return doc.Content[0], true
}

func yamlErrorText(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// mappingKey returns the string key of a mapping entry, or a problem message
// when the key is not a plain string.
func mappingKey(k *yaml.Node) (string, string) {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return "", fmt.Sprintf("mapping keys must be strings, found %s as a key", describeNode(k, false))
	}
	switch k.ShortTag() {
	case "!!str":
		return k.Value, ""
	case "!!merge":
		return "", "merge keys (<<) are not supported; write the keys out"
	default:
		return "", fmt.Sprintf("mapping keys must be strings, found key %s; quote it", shorten(k.Value))
	}
}

// mappingEntry is one entry of a YAML mapping: its key, its field path and
// its value.
type mappingEntry struct {
	key, path string
	value     *yaml.Node
}

// mappingEntries yields the entries of the mapping n at path, in order,
// each key once: a key that is not a plain string, and a key seen before,
// are reported to problem and skipped.
func mappingEntries(n *yaml.Node, path string, problem func(path, format string, args ...any)) iter.Seq[mappingEntry] {
	return func(yield func(mappingEntry) bool) {
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, msg := mappingKey(n.Content[i])
			if msg != "" {
				problem(path, "%s", msg)
				continue
			}
			p := joinPath(path, key)
			if seen[key] {
				problem(p, "duplicate key; keep only one")
				continue
			}
			seen[key] = true
			if !yield(mappingEntry{key: key, path: p, value: n.Content[i+1]}) {
				return
			}
		}
	}
}

// joinPath appends a key to a field path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// indexPath appends a list index to a field path.
func indexPath(path string, i int) string {
	return fmt.Sprintf("%s[%d]", path, i)
}

// describeNode names what a node holds, for "expected X, got Y" messages.
// With secret set, a scalar's text is not shown.
func describeNode(n *yaml.Node, secret bool) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if secret {
			return "a value of another type (not shown)"
		}
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!str":
			return fmt.Sprintf("%q", shorten(n.Value))
		default:
			return shorten(n.Value)
		}
	default:
		return "an unsupported YAML node"
	}
}

// shorten cuts long text so a message stays on one readable line.
func shorten(s string) string {
	const max = 60
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}
