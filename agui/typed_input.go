package agui

import (
	"bytes"

	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// typedInput reads the newest user message of a run for a typed agent
// (spec.inputSchema): its text is the input object as JSON, which becomes
// one data part, checked against the schema before anything is stored
// (runtime/contract.go). An untyped agent's input stays text (nil parts).
func (h *Handler) typedInput(text string) ([]runtime.InputPart, error) {
	c := h.svc.Contract()
	if c.InputSchema() == nil {
		return nil, nil
	}
	var parts []runtime.InputPart
	if t := bytes.TrimSpace([]byte(text)); len(t) > 0 && t[0] == '{' {
		parts = []runtime.InputPart{{Type: "data", Data: jsonwrite.Compact(t)}}
	}
	if err := runtime.CheckTypedInput(c, parts); err != nil {
		return nil, err
	}
	return parts, nil
}
