package config

import (
	"encoding/json"
	"reflect"

	"gopkg.in/yaml.v3"
)

// Fields whose YAML is not one Go kind: JSON Schemas (any value) and tool
// approvals (true, false or a list of names).
var (
	jsonValueType    = reflect.TypeFor[JSONValue]()
	toolApprovalType = reflect.TypeFor[ToolApproval]()
)

// special decodes the fields of the types above; it reports whether v was
// one of them.
func (d *decoder) special(n *yaml.Node, path string, v reflect.Value) bool {
	switch v.Type() {
	case byteSizeType:
		d.byteSize(n, path, v)
	case jsonValueType:
		d.jsonValue(n, path, v)
	case toolApprovalType:
		d.toolApproval(n, path, v)
	case routerHarnessesType:
		d.routerHarnesses(n, path, v)
	default:
		return false
	}
	return true
}

// jsonValue keeps any YAML value as JSON. Mapping keys must be strings
// (JSON has no other kind); environment references are not resolved
// inside (a schema is not configuration).
func (d *decoder) jsonValue(n *yaml.Node, path string, v reflect.Value) {
	d.nodes += countNodes(n)
	var value any
	if err := n.Decode(&value); err != nil {
		d.problem(path, "cannot read the value: %v", err)
		return
	}
	b, err := json.Marshal(value)
	if err != nil {
		d.problem(path, "cannot be written as JSON (mapping keys must be strings): %v", err)
		return
	}
	v.SetBytes(b)
	d.set[path] = true
}

// countNodes counts the nodes under n, for the size bound.
func countNodes(n *yaml.Node) int {
	c := 1
	for _, child := range n.Content {
		c += countNodes(child)
	}
	return c
}

// toolApproval reads true, false or a list of tool names.
func (d *decoder) toolApproval(n *yaml.Node, path string, v reflect.Value) {
	var a ToolApproval
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		if n.Decode(&a.All) != nil {
			d.wrongType(n, path, "true, false or a list of tool names")
			return
		}
	case n.Kind == yaml.SequenceNode:
		names := reflect.New(reflect.TypeFor[[]string]()).Elem()
		d.list(n, path, names)
		a.Tools = names.Interface().([]string)
	default:
		d.wrongType(n, path, "true, false or a list of tool names")
		return
	}
	v.Set(reflect.ValueOf(a))
	d.set[path] = true
}
