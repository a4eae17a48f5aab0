package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/harnest/harnest/internal/contract"
	"gopkg.in/yaml.v3"
)

// maxSchemaBytes bounds a schema file beside config.yaml.
const maxSchemaBytes = 1 << 20

// Contract compiles the agent's typed contract from spec.inputSchema and
// spec.outputSchema (as the loaded folder holds them: JSON); nil without
// either.
func (s Spec) Contract() (*contract.Contract, error) {
	return contract.New(json.RawMessage(s.InputSchema), json.RawMessage(s.OutputSchema))
}

// loadContract reads spec.inputSchema and spec.outputSchema — inline, or
// the name of a JSON or YAML file in the folder — and compiles them. The
// schemas in spec are replaced by the JSON they name. Problems are added
// to probs; the result is nil without schemas or on a problem.
func loadContract(dir string, spec *Spec, probs *Problems) *contract.Contract {
	before := probs.Len()
	input := schemaValue(dir, "spec.inputSchema", spec.InputSchema, probs)
	output := schemaValue(dir, "spec.outputSchema", spec.OutputSchema, probs)
	if probs.Len() > before {
		return nil
	}
	spec.InputSchema, spec.OutputSchema = JSONValue(input), JSONValue(output)
	var c contract.Contract
	var err error
	if len(input) > 0 {
		if c.Input, err = contract.Compile("input schema", input); err != nil {
			probs.add(configFile, "spec.inputSchema", err.Error())
		}
	}
	if len(output) > 0 {
		if c.Output, err = contract.Compile("output schema", output); err != nil {
			probs.add(configFile, "spec.outputSchema", err.Error())
		}
	}
	if probs.Len() > before || (c.Input == nil && c.Output == nil) {
		return nil
	}
	return &c
}

// schemaValue is a schema's JSON: the inline value, or the content of the
// file a string names. A schema must be an object (or true/false).
func schemaValue(dir, path string, raw JSONValue, probs *Problems) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var name string
	if json.Unmarshal(raw, &name) != nil {
		if raw[0] != '{' && string(raw) != "true" && string(raw) != "false" {
			probs.add(configFile, path, "must be a JSON Schema (a mapping) or the name of a schema file in the agent folder")
			return nil
		}
		return json.RawMessage(raw)
	}
	if !localFileName(name) {
		probs.add(configFile, path, fmt.Sprintf("must name a file in the agent folder, such as input.schema.json (no absolute path, no ..), got %q", name))
		return nil
	}
	data, ok := readFolderFile(dir, filepath.Clean(name), maxSchemaBytes, probs)
	if !ok {
		return nil
	}
	var value any
	if err := yaml.Unmarshal(data, &value); err != nil {
		probs.add(name, "", fmt.Sprintf("is not a JSON or YAML schema: %v", err))
		return nil
	}
	b, err := json.Marshal(value)
	if err != nil || len(b) == 0 || (b[0] != '{' && string(b) != "true" && string(b) != "false") {
		probs.add(name, "", "must hold one JSON Schema object (mapping keys must be strings)")
		return nil
	}
	return b
}
