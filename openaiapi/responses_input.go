package openaiapi

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// inputItem is one item of "input", as the door reads it.
type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// function_call_output
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`
	// mcp_approval_response
	ApprovalRequestID string `json:"approval_request_id"`
	Approve           *bool  `json:"approve"`
}

// contextEntry is one entry of the turn's context (runtime.Turn.Context):
// what the request says beside the turn's input.
type contextEntry struct {
	Description string `json:"description"`
	Value       any    `json:"value"`
}

// historyMessage is an earlier message the request carried.
type historyMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// parseInput reads "input": a string (the user's text), or items. Items
// that answer a wait (function_call_output, mcp_approval_response) make the
// request an answer; otherwise the user content after the last assistant
// message is the turn's input, system and developer messages (and
// "instructions") go to the agent as instructions, and earlier messages as
// history, in the turn's context. Items the caller echoes back from
// earlier output (function_call, reasoning, mcp_approval_request) are
// history the session already holds.
func parseInput(raw json.RawMessage, req *createRequest) (failure, bool) {
	var context []contextEntry
	if req.Echo.Instructions != "" {
		context = append(context, contextEntry{Description: "instructions", Value: req.Echo.Instructions})
	}
	defer func() {
		if len(context) > 0 {
			req.Turn.Context, _ = json.Marshal(context)
		}
	}()
	if len(raw) > 0 && raw[0] == '"' {
		_ = json.Unmarshal(raw, &req.Turn.Input)
		return failure{}, true
	}
	var items []inputItem
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return invalid("input", "invalid_input", `"input" is required: a string, or a non-empty array of input items`), false
	}
	lastAssistant, answers := -1, 0
	for i, it := range items {
		switch it.Type {
		case "function_call_output", "mcp_approval_response":
			answers++
		case "", "message":
			if it.Role == "assistant" {
				lastAssistant = i
			}
		}
	}
	if answers > 0 {
		return parseAnswer(items, req)
	}
	var history []historyMessage
	for i, it := range items {
		param := "input[" + strconv.Itoa(i) + "]"
		if it.Type != "" && it.Type != "message" {
			continue
		}
		text, parts, f, ok := itemContent(it.Content, param+".content")
		if !ok {
			return f, false
		}
		switch {
		case it.Role == "system" || it.Role == "developer":
			context = append(context, contextEntry{Description: "instructions", Value: text})
		case it.Role == "user" && i > lastAssistant:
			if req.Turn.Input != "" && text != "" {
				req.Turn.Input += "\n"
			}
			req.Turn.Input += text
			req.Turn.Parts = append(req.Turn.Parts, parts...)
		case it.Role == "user" || it.Role == "assistant":
			history = append(history, historyMessage{Role: it.Role, Text: text})
		default:
			return invalid(param+".role", "invalid_role", `A message's role is "user", "assistant", "system" or "developer"`), false
		}
	}
	if len(history) > 0 {
		context = append(context, contextEntry{Description: "conversation history the caller sent (oldest first)", Value: history})
	}
	if !hasMedia(req.Turn.Parts) {
		req.Turn.Parts = nil // text only: the input string says it all
	}
	return failure{}, true
}

func hasMedia(parts []runtime.InputPart) bool {
	for _, p := range parts {
		if p.Type != "text" {
			return true
		}
	}
	return false
}

// parseAnswer reads a request that answers a wait: one
// mcp_approval_response, or the function_call_output of every call the
// response asked for (responses_calls.go), and no new message after them
// (send that in the next request, once the response goes on).
func parseAnswer(items []inputItem, req *createRequest) (failure, bool) {
	var outputs []callOutput
	approval := false
	for i, it := range items {
		param := "input[" + strconv.Itoa(i) + "]"
		switch it.Type {
		case "function_call_output":
			if approval {
				return invalid(param, "one_answer", "Send one mcp_approval_response per request, without function_call_outputs: the agent waits for one answer at a time"), false
			}
			if it.CallID == "" {
				return invalid(param+".call_id", "invalid_value", "A function_call_output needs the call_id of the function_call it answers"), false
			}
			output := it.Output
			if len(output) == 0 || output[0] != '"' {
				output, _ = json.Marshal(output) // an array of content parts, kept as its JSON text
			}
			outputs = append(outputs, callOutput{param: param, callID: it.CallID, output: output})
		case "mcp_approval_response":
			if req.Answer != nil || len(outputs) > 0 {
				return invalid(param, "one_answer", "Send one mcp_approval_response per request, without function_call_outputs: the agent waits for one answer at a time"), false
			}
			approval = true
			if it.ApprovalRequestID == "" || it.Approve == nil {
				return invalid(param, "invalid_value", "An mcp_approval_response needs approval_request_id and approve (true or false)"), false
			}
			req.Answer = &waitAnswer{ApprovalID: it.ApprovalRequestID, Approve: *it.Approve}
		case "", "message":
			if (req.Answer != nil || len(outputs) > 0) && it.Role == "user" {
				return invalid(param, "message_after_answer", "A request that answers a function call or an approval carries no new user message: the response goes on with the answer; send the message in the next request with its previous_response_id"), false
			}
		}
	}
	if len(outputs) > 0 {
		answer, f, ok := joinOutputs(outputs) // responses_calls.go
		if !ok {
			return f, false
		}
		req.Answer = answer
	}
	return failure{}, true
}

// itemContent reads a message's content: a string, or parts
// (input_text, output_text, input_image with an http(s) or data URL,
// input_file by URL or as file_data). It returns the text (text parts
// joined with newlines) and the parts.
func itemContent(raw json.RawMessage, param string) (string, []runtime.InputPart, failure, bool) {
	var text string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &text) == nil {
		return text, []runtime.InputPart{{Type: "text", Text: text}}, failure{}, true
	}
	var items []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
		FileURL  string `json:"file_url"`
		FileData string `json:"file_data"`
		FileID   string `json:"file_id"`
		Filename string `json:"filename"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return "", nil, invalid(param, "invalid_content", "A message's content is a string or an array of content parts"), false
	}
	var texts []string
	var parts []runtime.InputPart
	for i, p := range items {
		switch {
		case p.Type == "input_text" || p.Type == "output_text" || p.Type == "text":
			texts = append(texts, p.Text)
			parts = append(parts, runtime.InputPart{Type: "text", Text: p.Text})
		case p.Type == "input_image" && p.ImageURL != "":
			parts = append(parts, runtime.InputPart{Type: "file", URL: p.ImageURL, MediaType: dataURLType(p.ImageURL, "image/*")})
		case p.Type == "input_file" && (p.FileURL != "" || p.FileData != ""):
			url := p.FileURL
			if url == "" {
				url = p.FileData
				if !strings.HasPrefix(url, "data:") {
					url = "data:application/octet-stream;base64," + url
				}
			}
			parts = append(parts, runtime.InputPart{Type: "file", URL: url, MediaType: dataURLType(url, ""), Name: p.Filename})
		default:
			return "", nil, invalid(param+"["+strconv.Itoa(i)+"]", "unsupported_content",
				"Content parts are input_text, input_image (image_url: an http(s) or data URL) and input_file (file_url or file_data); this server has no files API (file_id)"), false
		}
	}
	return strings.Join(texts, "\n"), parts, failure{}, true
}

// dataURLType is the media type a data URL declares, or otherwise.
func dataURLType(url, otherwise string) string {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return otherwise
	}
	if i := strings.IndexAny(rest, ";,"); i > 0 {
		return rest[:i]
	}
	return otherwise
}
