package openaiapi

import (
	"encoding/json"
	"strconv"

	"github.com/harnest/harnest/internal/jsonwrite"
)

// A setting is a field of the create request that the response object
// repeats as the request sent it (the specification's ResponseResource
// repeats them), or at its neutral value when the request left it out.
// The agent decides its own sampling: tool_choice "none" is the only
// setting that changes the turn (no function tools are offered); the
// others are checked for their type and repeated.
type setting struct {
	name string
	kind string // number, integer, boolean, string, object, or choice (tool_choice: a string or an object)
	// neutral is the value of a response whose request did not set it.
	neutral string
	field   func(r *orResponse) *json.RawMessage
}

// settings are the settings, in the specification's order.
var settings = []setting{
	{"tool_choice", "choice", `"auto"`, func(r *orResponse) *json.RawMessage { return &r.ToolChoice }},
	{"truncation", "string", `"disabled"`, func(r *orResponse) *json.RawMessage { return &r.Truncation }},
	{"parallel_tool_calls", "boolean", `true`, func(r *orResponse) *json.RawMessage { return &r.ParallelToolCalls }},
	{"text", "object", `{"format":{"type":"text"}}`, func(r *orResponse) *json.RawMessage { return &r.Text }},
	{"top_p", "number", `1`, func(r *orResponse) *json.RawMessage { return &r.TopP }},
	{"presence_penalty", "number", `0`, func(r *orResponse) *json.RawMessage { return &r.PresencePenalty }},
	{"frequency_penalty", "number", `0`, func(r *orResponse) *json.RawMessage { return &r.FrequencyPenalty }},
	{"top_logprobs", "integer", `0`, func(r *orResponse) *json.RawMessage { return &r.TopLogprobs }},
	{"temperature", "number", `1`, func(r *orResponse) *json.RawMessage { return &r.Temperature }},
	{"reasoning", "object", `null`, func(r *orResponse) *json.RawMessage { return &r.Reasoning }},
	{"user", "string", `null`, func(r *orResponse) *json.RawMessage { return &r.User }},
	{"max_output_tokens", "integer", `null`, func(r *orResponse) *json.RawMessage { return &r.MaxOutputTokens }},
	{"max_tool_calls", "integer", `null`, func(r *orResponse) *json.RawMessage { return &r.MaxToolCalls }},
	{"service_tier", "string", `"default"`, func(r *orResponse) *json.RawMessage { return &r.ServiceTier }},
	{"safety_identifier", "string", `null`, func(r *orResponse) *json.RawMessage { return &r.SafetyIdentifier }},
	{"prompt_cache_key", "string", `null`, func(r *orResponse) *json.RawMessage { return &r.PromptCacheKey }},
}

// parseSettings reads the settings the request sets (null or absent: the
// neutral value) into echo; a value of the wrong type is refused, naming
// the field.
func parseSettings(obj map[string]json.RawMessage, echo *echoed) (failure, bool) {
	for _, s := range settings {
		raw, ok := obj[s.name]
		if !ok || string(raw) == "null" {
			continue
		}
		if !s.accepts(raw) {
			return invalid(s.name, "invalid_type", strconv.Quote(s.name)+" must be "+s.says()), false
		}
		if echo.Settings == nil {
			echo.Settings = map[string]json.RawMessage{}
		}
		echo.Settings[s.name] = jsonwrite.Compact(raw)
	}
	return failure{}, true
}

// accepts reports whether raw is a value of the setting's kind.
func (s setting) accepts(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch s.kind {
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	// choice: "none", "auto", "required", or an object naming a tool
	switch c := v.(type) {
	case string:
		return c == "none" || c == "auto" || c == "required"
	case map[string]any:
		return true
	}
	return false
}

// says names the setting's kind for an error message.
func (s setting) says() string {
	switch s.kind {
	case "integer":
		return "an integer"
	case "choice":
		return `"none", "auto", "required" or an object that names a tool`
	case "object":
		return "an object"
	}
	return "a " + s.kind
}

// setSettings sets the response's settings: as the request sent them, or
// neutral.
func (e echoed) setSettings(r *orResponse) {
	for _, s := range settings {
		v, ok := e.Settings[s.name]
		if !ok {
			v = json.RawMessage(s.neutral)
		}
		*s.field(r) = v
	}
}
