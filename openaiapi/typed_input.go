package openaiapi

import (
	"bytes"

	"github.com/harnest/harnest/internal/contract"
	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// typedTurn reads a typed agent's input (spec.inputSchema) from a
// /v1/responses request: the user's text is the input object as JSON,
// which becomes one data part that the runtime checks against the schema
// before anything is stored (runtime/contract.go). Media parts have no
// place in a typed input. An untyped agent's turn is left as it is.
func typedTurn(c *contract.Contract, turn *runtime.ResponseRequest) error {
	if c.InputSchema() == nil {
		return nil
	}
	var parts []runtime.InputPart
	if t := bytes.TrimSpace([]byte(turn.Input)); len(t) > 0 && t[0] == '{' && len(turn.Parts) == 0 {
		parts = []runtime.InputPart{{Type: "data", Data: jsonwrite.Compact(t)}}
	}
	if err := runtime.CheckTypedInput(c, parts); err != nil {
		return err
	}
	turn.Parts = parts
	return nil
}
