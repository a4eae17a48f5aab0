package uichat

import (
	"bytes"

	"github.com/harnest/harnest/internal/contract"
	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// typedParts reads a typed agent's input (spec.inputSchema) from the
// newest user message: its text is the input object as JSON, which becomes
// one data part that the runtime checks against the schema before anything
// is stored (runtime/contract.go). An untyped agent's parts are left as
// they are.
func typedParts(c *contract.Contract, input string, parts []runtime.InputPart) ([]runtime.InputPart, error) {
	if c.InputSchema() == nil {
		return parts, nil
	}
	var typed []runtime.InputPart
	if t := bytes.TrimSpace([]byte(input)); len(t) > 0 && t[0] == '{' && len(parts) == 0 {
		typed = []runtime.InputPart{{Type: "data", Data: jsonwrite.Compact(t)}}
	}
	if err := runtime.CheckTypedInput(c, typed); err != nil {
		return nil, err
	}
	return typed, nil
}
