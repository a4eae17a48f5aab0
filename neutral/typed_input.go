package neutral

import (
	"encoding/json"

	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// Typed input: an agent with an input schema (spec.inputSchema) takes
// "input" as a JSON object. It reaches the runtime as one data part, which
// the runtime checks against the schema before anything is stored
// (runtime/contract.go); the text of the turn is the object's compact JSON,
// so transcripts and text-only backends see it. An untyped agent refuses
// an object (generalResponseRequest).

// typedInput reads an object input (valid JSON: both paths checked it)
// as one data part.
func typedInput(raw json.RawMessage) (string, []runtime.InputPart, error) {
	if !isObject(raw) {
		return "", nil, fieldError{"input", "must be a JSON object"}
	}
	data := jsonwrite.Compact(raw)
	return string(data), []runtime.InputPart{{Type: "data", Data: data}}, nil
}

// isObject reports whether a member's raw JSON is an object.
func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

// agentContract is what GET /agent shows of a typed agent: its schemas
// (the OpenAPI document has them too, as AgentInput and AgentOutput).
type agentContract struct {
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// contractOf is the /agent contract of svc's agent; nil when untyped.
func contractOf(svc *runtime.Service) *agentContract {
	c := svc.Contract()
	if c == nil {
		return nil
	}
	return &agentContract{InputSchema: c.InputSchema().JSON(), OutputSchema: c.OutputSchema().JSON()}
}
