package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestLoadContractInlineAndFromAFile(t *testing.T) {
	cfg := minimalConfig + `  inputSchema:
    type: object
    required: [city]
    properties:
      city: {type: string}
  outputSchema: output.schema.json
`
	dir := writeFolder(t, cfg, minimalCard, minimalInstructions)
	if err := os.WriteFile(filepath.Join(dir, "output.schema.json"), []byte(`{"type":"object","required":["answer"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f := mustLoad(t, dir, nil)
	c, err := f.Config.Spec.Contract()
	if err != nil {
		t.Fatal(err)
	}
	if c == nil || c.InputSchema() == nil || c.OutputSchema() == nil {
		t.Fatalf("contract not loaded: %+v", c)
	}
	if vs := c.InputSchema().Check(json.RawMessage(`{}`)); len(vs) != 1 {
		t.Errorf("input schema checks: %v", vs)
	}
	if got := string(f.Config.Spec.OutputSchema); got != `{"required":["answer"],"type":"object"}` {
		t.Errorf("outputSchema from the file = %s", got)
	}
	if c, _ := mustLoad(t, writeFolder(t, minimalConfig, minimalCard, minimalInstructions), nil).Config.Spec.Contract(); c != nil {
		t.Errorf("an untyped agent has a contract")
	}
}

func TestLoadContractProblems(t *testing.T) {
	for name, tc := range map[string]struct{ spec, want string }{
		"not a schema": {"  inputSchema: 3\n", "spec.inputSchema"},
		"bad schema":   {"  outputSchema: {type: nope}\n", "output schema does not compile"},
		"outside":      {"  inputSchema: ../x.json\n", "must name a file in the agent folder"},
		"missing file": {"  inputSchema: in.json\n", "in.json"},
		"remote ref":   {"  inputSchema: {$ref: 'https://example.com/s.json'}\n", "self-contained"},
	} {
		t.Run(name, func(t *testing.T) {
			probs := mustProblems(t, writeFolder(t, minimalConfig+tc.spec, minimalCard, minimalInstructions), nil)
			if !hasLine(probs, tc.want) {
				t.Errorf("problems %q lack %q", probs.Lines(), tc.want)
			}
		})
	}
}
