package openaiapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// createRequest is a POST /v1/responses body, as the door uses it. A
// request either starts a turn (Turn) or answers what a response waits
// for (Answer: a function_call_output or an mcp_approval_response), which
// continues that response.
type createRequest struct {
	Turn   runtime.ResponseRequest
	Answer *waitAnswer
	Echo   echoed
	Stream bool
	// Input is the request's "input", as sent.
	Input json.RawMessage
	// Previous is the response previous_response_id names.
	Previous *responseRef
}

// waitAnswer answers one wait of a response.
type waitAnswer struct {
	CallID     string          // function_call_output: the call's call_id
	Output     json.RawMessage // its output, as a JSON value
	ApprovalID string          // mcp_approval_response: the request's ID
	Approve    bool
}

// parseCreate checks the body of POST /v1/responses. The settings the
// agent decides for itself (sampling, truncation, ...) are checked and
// repeated by the response, not applied (responses_settings.go).
func (d *door) parseCreate(obj map[string]json.RawMessage) (createRequest, failure, int) {
	var req createRequest
	var model string
	if json.Unmarshal(obj["model"], &model) != nil || model == "" {
		return req, invalid("model", "invalid_model", `"model" is required: the agent's name, `+strconv.Quote(d.model)), http.StatusBadRequest
	}
	if model != d.model {
		param := "model"
		return req, d.modelNotFound(model, &param), http.StatusNotFound
	}
	req.Echo = echoed{Model: model, Store: true}
	for _, f := range []struct {
		name string
		to   *bool
	}{{"stream", &req.Stream}, {"background", &req.Echo.Background}, {"store", &req.Echo.Store}} {
		if raw, ok := obj[f.name]; ok && string(raw) != "null" && json.Unmarshal(raw, f.to) != nil {
			return req, invalid(f.name, "invalid_type", strconv.Quote(f.name)+" must be a boolean"), http.StatusBadRequest
		}
	}
	if req.Echo.Background && !req.Echo.Store {
		return req, invalid("store", "invalid_value", `A background response is stored: "background": true needs "store" true (or left out)`), http.StatusBadRequest
	}
	if f, ok := d.parseEchoed(obj, &req); !ok {
		if f.Code == "previous_response_not_found" {
			return req, f, http.StatusNotFound
		}
		return req, f, http.StatusBadRequest
	}
	req.Input = obj["input"]
	if f, ok := parseInput(obj["input"], &req); !ok {
		return req, f, http.StatusBadRequest
	}
	if req.Answer == nil {
		if f, ok := req.turnContext(); !ok {
			return req, f, http.StatusBadRequest
		}
	}
	// An answer's continuation is kept as its conversation is, whatever
	// its "store" says (answerWait); a new turn with "store": false has a
	// conversation of its own (responses_ephemeral.go).
	if !req.Echo.Store && req.Answer == nil && req.Turn.SessionID != "" {
		return req, invalid("store", "invalid_value", `"store": false runs the turn in a conversation of its own, deleted when the turn ends: `+
			`it cannot continue a stored one (previous_response_id or conversation); send the earlier messages in "input" instead`), http.StatusBadRequest
	}
	req.Turn.Stream = true // the door folds the events, also for a JSON answer
	req.Turn.Background = req.Echo.Background
	req.Turn.Metadata = req.Echo.Metadata
	req.Turn.Transport = runtime.TransportOpenAI
	// Several function calls at once, unless the request asks for one at a
	// time (responses_calls.go).
	req.Turn.ParallelClientTools = string(req.Echo.Settings["parallel_tool_calls"]) != "false"
	return req, failure{}, 0
}

// parseEchoed reads the fields the response repeats: instructions, tools,
// metadata, previous_response_id and conversation.
func (d *door) parseEchoed(obj map[string]json.RawMessage, req *createRequest) (failure, bool) {
	if raw, ok := obj["instructions"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &req.Echo.Instructions) != nil {
			return invalid("instructions", "invalid_type", `"instructions" must be a string`), false
		}
	}
	if raw, ok := obj["metadata"]; ok && string(raw) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return invalid("metadata", "invalid_type", `"metadata" must be an object`), false
		}
		req.Echo.Metadata = jsonwrite.Compact(raw)
	}
	if f, ok := parseTools(obj, req); !ok {
		return f, false
	}
	if f, ok := parseSettings(obj, &req.Echo); !ok { // responses_settings.go
		return f, false
	}
	if f, ok := d.setTextFormat(&req.Echo); !ok { // responses_text_format.go
		return f, false
	}
	if raw, ok := obj["previous_response_id"]; ok && string(raw) != "null" {
		var id string
		if json.Unmarshal(raw, &id) != nil {
			return invalid("previous_response_id", "invalid_type", `"previous_response_id" must be a string`), false
		}
		ref, ok := parseResponseRef(id)
		if !ok || ref.Ephemeral { // a response not stored is never found
			ref, ok = responseRef{}, false
		}
		if !ok {
			return failure{Type: typeInvalidRequest, Code: "previous_response_not_found", Param: ptr("previous_response_id"),
				Message: "Previous response with id " + strconv.Quote(id) + " not found"}, false
		}
		req.Previous, req.Echo.PreviousResponseID = &ref, id
		req.Turn.SessionID = ref.SessionID
	}
	if raw, ok := obj["conversation"]; ok && string(raw) != "null" {
		var id string
		var object struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &id) != nil {
			if json.Unmarshal(raw, &object) != nil {
				return invalid("conversation", "invalid_type", `"conversation" must be a session ID or {"id": <session ID>}`), false
			}
			id = object.ID
		}
		if id == "" {
			return invalid("conversation", "invalid_value", `"conversation" must name a session (create one with POST /sessions)`), false
		}
		if req.Previous != nil {
			return invalid("conversation", "invalid_request", `Send "previous_response_id" or "conversation", not both: each names the conversation`), false
		}
		req.Turn.SessionID, req.Echo.Conversation = id, id
	}
	return failure{}, true
}

// parseTools reads "tools": function tools, offered to the agent as client
// tools ({name, description, parameters}); the agent's call ends the
// response with a function_call item. Other tool types are refused: the
// agent has its own tools.
func parseTools(obj map[string]json.RawMessage, req *createRequest) (failure, bool) {
	raw, ok := obj["tools"]
	if !ok || string(raw) == "null" {
		return failure{}, true
	}
	var tools []map[string]json.RawMessage
	if json.Unmarshal(raw, &tools) != nil {
		return invalid("tools", "invalid_type", `"tools" must be an array of function tools`), false
	}
	offered := make([]map[string]json.RawMessage, 0, len(tools))
	for i, tool := range tools {
		param := "tools[" + strconv.Itoa(i) + "]"
		var typ, name string
		_ = json.Unmarshal(tool["type"], &typ)
		if typ != "function" {
			return invalid(param+".type", "unsupported_tool", "Only tools of type \"function\" are supported (offered to the agent as client tools); the agent has its own tools"), false
		}
		if json.Unmarshal(tool["name"], &name) != nil || name == "" {
			return invalid(param+".name", "invalid_value", "A function tool needs a name"), false
		}
		entry := map[string]json.RawMessage{"name": tool["name"]}
		for _, k := range []string{"description", "parameters"} {
			if v, ok := tool[k]; ok && string(v) != "null" {
				entry[k] = v
			}
		}
		offered = append(offered, entry)
		req.Echo.Tools = append(req.Echo.Tools, functionTool(tool))
	}
	var choice string
	_ = json.Unmarshal(obj["tool_choice"], &choice)
	if len(offered) > 0 && choice != "none" {
		req.Turn.ClientTools, _ = json.Marshal(offered)
	}
	return failure{}, true
}

// functionTool is a function tool as the response repeats it: every field
// of the specification's FunctionTool.
func functionTool(tool map[string]json.RawMessage) json.RawMessage {
	out := map[string]json.RawMessage{"type": json.RawMessage(`"function"`), "name": tool["name"],
		"description": json.RawMessage("null"), "parameters": json.RawMessage("null"), "strict": json.RawMessage("null")}
	for _, k := range []string{"description", "parameters", "strict"} {
		if v, ok := tool[k]; ok {
			out[k] = v
		}
	}
	b, _ := json.Marshal(out)
	return b
}

func ptr(s string) *string { return &s }

// turnContext checks that a turn has input.
func (req *createRequest) turnContext() (failure, bool) {
	if strings.TrimSpace(req.Turn.Input) == "" && len(req.Turn.Parts) == 0 {
		return invalid("input", "invalid_input", `"input" has no user text or image: the turn's input is the user content after the last assistant message`), false
	}
	return failure{}, true
}
