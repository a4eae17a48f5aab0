package openaiapi

import (
	"bytes"
	"encoding/json"

	"github.com/harnest/harnest/internal/contract"
)

// The response's "text" says the format of its text output. An agent with
// an output schema (spec.outputSchema) answers JSON that matches it, so
// its responses say {"format": {"type": "json_schema", "name":
// "agent_output", "schema": ..., "strict": false}} and the answer's
// output_text is that JSON. The agent's schema decides the format: a
// request may leave "text" out or ask for that format; one that asks for
// plain text or another schema is refused, naming text.format, since the
// agent cannot answer it.

// typedTextFormat is the "text" of a typed agent's responses (nil for an
// agent that answers text).
func typedTextFormat(c *contract.Contract) json.RawMessage {
	schema := c.OutputSchema()
	if schema == nil {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"format": map[string]any{
		"type": "json_schema", "name": "agent_output", "schema": json.RawMessage(schema.JSON()), "strict": false}})
	return b
}

// setTextFormat fills in a typed agent's text format, or refuses a
// request that asks for another.
func (d *door) setTextFormat(echo *echoed) (failure, bool) {
	typed := typedTextFormat(d.svc.Contract())
	asked, set := echo.Settings["text"]
	if typed == nil {
		if set && !asksPlainText(asked) {
			return invalid("text.format", "unsupported_value", `this agent answers text: "text.format" may only be {"type": "text"}`), false
		}
		return failure{}, true
	}
	if set && !asksSameSchema(asked, typed) {
		return invalid("text.format", "unsupported_value", `this agent answers JSON that matches its own output schema: leave "text" out, `+
			`or ask for {"type": "json_schema"} with that schema (see /agent's contract)`), false
	}
	if echo.Settings == nil {
		echo.Settings = map[string]json.RawMessage{}
	}
	echo.Settings["text"] = typed
	return failure{}, true
}

// textFormat is the part of "text" this door reads.
type textFormat struct {
	Format *struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	} `json:"format"`
}

// asksPlainText: "text" without a format, or with {"type": "text"}.
func asksPlainText(raw json.RawMessage) bool {
	var t textFormat
	if json.Unmarshal(raw, &t) != nil {
		return false
	}
	return t.Format == nil || t.Format.Type == "text"
}

// asksSameSchema: "text" without a format, or a json_schema format whose
// schema is the agent's (or left out).
func asksSameSchema(raw, typed json.RawMessage) bool {
	var t, want textFormat
	if json.Unmarshal(raw, &t) != nil || json.Unmarshal(typed, &want) != nil {
		return false
	}
	if t.Format == nil {
		return true
	}
	if t.Format.Type != "json_schema" {
		return false
	}
	return len(t.Format.Schema) == 0 || sameJSON(t.Format.Schema, want.Format.Schema)
}

// sameJSON compares two JSON values as values (member order aside).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
