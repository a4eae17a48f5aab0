package schedule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// A schedule's input is what each fire sends: text, or, for an agent with
// a typed input contract (spec.inputSchema), a JSON object that matches
// the schema. The definition keeps text in Input and an object in
// InputData; the routes show either as "input".

// setInput reads a create or patch body's input member: a JSON string
// (text) or a JSON object (typed input).
func setInput(d *Definition, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return fieldError{"input", "must be text or a JSON object"}
		}
		d.Input, d.InputData = text, nil
	case len(raw) > 0 && raw[0] == '{':
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			return fieldError{"input", "must be text or a JSON object"}
		}
		d.Input, d.InputData = "", compact.Bytes()
	default:
		return fieldError{"input", "must be text or a JSON object (an object only for an agent with an input schema)"}
	}
	return nil
}

// checkInput refuses an input the agent would refuse at every fire: blank
// text, too large, text for a typed agent, an object for an untyped one,
// or an object that breaks the input schema (each violation named with
// its JSON Pointer).
func (s *Scheduler) checkInput(d Definition) error {
	max := s.o.Service.MaxInputBytes()
	typed := s.o.Service.Contract().InputSchema() != nil
	switch {
	case d.InputData != nil && !typed:
		return fieldError{"input", "is an object, but this agent has no input schema: send the text each fire sends"}
	case d.InputData != nil:
		if len(d.InputData) > max {
			return fieldError{"input", fmt.Sprintf("is larger than the %s an input may be", runtime.FormatBytes(int64(max)))}
		}
		if err := runtime.CheckTypedInput(s.o.Service.Contract(), d.parts()); err != nil {
			return fieldError{"input", "does not match the agent's input schema: " + strings.TrimPrefix(runtime.AsError(err).Detail, "input does not match the agent's input schema: ")}
		}
		return nil
	case typed:
		return fieldError{"input", "is required as a JSON object that matches the agent's input schema (see createAgentResponse in /openapi.json)"}
	case strings.TrimSpace(d.Input) == "":
		return fieldError{"input", "is required: the non-blank text each fire sends"}
	case len(d.Input) > max:
		return fieldError{"input", fmt.Sprintf("is larger than the %s an input may be", runtime.FormatBytes(int64(max)))}
	}
	return nil
}

// parts is a typed input as the runtime takes it (nil for text).
func (d Definition) parts() []runtime.InputPart {
	if d.InputData == nil {
		return nil
	}
	return []runtime.InputPart{{Type: "data", Data: d.InputData}}
}

// inputView is the input as the routes show it: the text as a JSON
// string, or the object.
func (d Definition) inputView() json.RawMessage {
	if d.InputData != nil {
		return d.InputData
	}
	b, _ := json.Marshal(d.Input)
	return b
}
