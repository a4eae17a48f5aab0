package config

import (
	"reflect"

	"gopkg.in/yaml.v3"
)

// routerHarnessesType is spec.backend.router.harnesses, whose order
// matters: "auto" ties and next_harness follow it.
var routerHarnessesType = reflect.TypeFor[RouterHarnesses]()

// routerHarnesses decodes the harnesses like any mapping, then writes
// each harness's place in the mapping (1 for the first) into its Place,
// which a Go map would otherwise lose. A duplicate key keeps the place of
// its first occurrence (the decoder reports the duplicate).
func (d *decoder) routerHarnesses(n *yaml.Node, path string, v reflect.Value) {
	d.mapping(n, path, v)
	if n.Kind != yaml.MappingNode || v.IsNil() {
		return
	}
	harnesses := v.Interface().(RouterHarnesses)
	place := 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, msg := mappingKey(n.Content[i])
		h, ok := harnesses[name]
		if msg != "" || !ok || h.Place != 0 {
			continue
		}
		place++
		h.Place = place
		harnesses[name] = h
	}
}
