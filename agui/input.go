package agui

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harnest/harnest/internal/jsonwrite"
)

// runInput is a RunAgentInput after validation: everything the handler
// needs, and nothing that grants authority.
type runInput struct {
	ThreadID string // "" when the client sent none: a new thread
	RunID    string // never empty: the client's, or a fresh one
	// Legacy is true for clients that send no protocolVersion (the 0.0.x
	// generation, CopilotKit's): they reject some 1.0-only shapes.
	Legacy bool

	// Messages are the client's messages, each with an id, as raw JSON
	// (restated in MESSAGES_SNAPSHOT); activity messages are left out.
	Messages []json.RawMessage
	// Input is the text of the newest user message (the turn's input);
	// UserKey identifies that message across runs. Both "" when the
	// messages hold no user message.
	Input   string
	UserKey string
	// LastRole is the role of the last message ("" when there is none).
	LastRole string
	// ToolAnswers is the trailing group of role:"tool" messages (frontend
	// tool results), in order.
	ToolAnswers []toolAnswer

	State          map[string]json.RawMessage // never nil
	Context        json.RawMessage            // compact JSON array; nil when empty
	Tools          json.RawMessage            // compact JSON array; nil when empty
	ToolNames      map[string]bool
	ForwardedProps json.RawMessage // compact JSON; nil when absent, null or {}
	Resume         []resumeEntry   // nil when absent or empty
}

// toolAnswer is a role:"tool" message: the output of a frontend tool.
type toolAnswer struct {
	ToolCallID string
	Output     json.RawMessage // the content, parsed as JSON when it is JSON, else a JSON string
}

// resumeEntry answers one interrupt.
type resumeEntry struct {
	InterruptID string
	Cancelled   bool            // status "cancelled"; otherwise "resolved"
	Payload     json.RawMessage // nil when absent
}

// inputError is a RunAgentInput problem: a sentence for the caller.
type inputError string

func (e inputError) Error() string { return string(e) }

func invalidf(format string, args ...any) error { return inputError(fmt.Sprintf(format, args...)) }

// Roles a message may have.
var knownRoles = map[string]bool{
	"user": true, "assistant": true, "system": true, "developer": true,
	"tool": true, "activity": true, "reasoning": true,
}

// reservedKey reports state keys that belong to the server (harnest's own
// and its frameworks' scopes): a client may neither set them nor see them.
func reservedKey(k string) bool {
	return strings.HasPrefix(k, "_") || strings.HasPrefix(k, "app:") ||
		strings.HasPrefix(k, "user:") || strings.HasPrefix(k, "temp:")
}

// isNull reports an absent or null member.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// parseRunInput validates a RunAgentInput body (already a JSON object's
// members). Unknown members are ignored, as the protocol asks; members this
// server uses must have the right shape. newID makes IDs for runs and
// messages that have none.
func parseRunInput(obj map[string]json.RawMessage, newID func() string) (runInput, error) {
	in := runInput{State: map[string]json.RawMessage{}}
	var err error
	if in.ThreadID, err = optionalID(obj, "threadId"); err != nil {
		return in, err
	}
	if in.RunID, err = optionalID(obj, "runId"); err != nil {
		return in, err
	}
	if in.RunID == "" {
		in.RunID = newID()
	}
	if raw, ok := obj["protocolVersion"]; ok && !isNull(raw) {
		var v string
		if json.Unmarshal(raw, &v) != nil || raw[0] != '"' {
			return in, invalidf("protocolVersion must be a string")
		}
		in.Legacy = v == ""
	} else {
		in.Legacy = true
	}
	if err := in.parseMessages(obj["messages"], newID); err != nil {
		return in, err
	}
	if err := in.parseState(obj["state"]); err != nil {
		return in, err
	}
	if in.Context, err = parseContext(obj["context"]); err != nil {
		return in, err
	}
	if in.Tools, in.ToolNames, err = parseTools(obj["tools"]); err != nil {
		return in, err
	}
	if raw := obj["forwardedProps"]; !isNull(raw) && !isEmptyObject(raw) {
		in.ForwardedProps = jsonwrite.Compact(raw)
	}
	if in.Resume, err = parseResume(obj["resume"]); err != nil {
		return in, err
	}
	return in, nil
}

// optionalID reads an optional non-blank string member.
func optionalID(obj map[string]json.RawMessage, key string) (string, error) {
	raw, ok := obj[key]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
		return "", invalidf("%s must be a non-blank string", key)
	}
	return s, nil
}

func (in *runInput) parseMessages(raw json.RawMessage, newID func() string) error {
	if isNull(raw) {
		return nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return invalidf("messages must be an array of message objects")
	}
	lastUser := -1
	var userText, userKey string
	for i, item := range items {
		var m map[string]json.RawMessage
		if len(item) == 0 || item[0] != '{' || json.Unmarshal(item, &m) != nil {
			return invalidf("messages[%d] must be an object", i)
		}
		var role string
		if r, ok := m["role"]; !ok || json.Unmarshal(r, &role) != nil || !knownRoles[role] {
			return invalidf("messages[%d].role must be one of user, assistant, system, developer, tool, activity, reasoning", i)
		}
		id, hasID := "", false
		if rawID, ok := m["id"]; ok && !isNull(rawID) {
			if rawID[0] != '"' || json.Unmarshal(rawID, &id) != nil || id == "" {
				return invalidf("messages[%d].id must be a non-empty string", i)
			}
			hasID = true
		}
		if !hasID {
			id = newID()
			idJSON, _ := json.Marshal(id)
			m["id"] = idJSON
		}
		for k, v := range m {
			if string(v) == "null" {
				delete(m, k) // restated in snapshots, where null is fatal
			}
		}
		switch role {
		case "user":
			text, err := contentText(m["content"], i)
			if err != nil {
				return err
			}
			lastUser = i
			userText = text
			if hasID {
				userKey = "id:" + id
			} else {
				sum := sha256.Sum256([]byte(text))
				userKey = "text:" + hex.EncodeToString(sum[:12])
			}
		case "tool":
			var callID string
			if c, ok := m["toolCallId"]; !ok || c[0] != '"' || json.Unmarshal(c, &callID) != nil || callID == "" {
				return invalidf("messages[%d].toolCallId must be a non-empty string", i)
			}
			if _, err := anyContentText(m["content"], i); err != nil {
				return err
			}
		case "system", "developer", "reasoning":
			var s string
			if c, ok := m["content"]; !ok || c[0] != '"' || json.Unmarshal(c, &s) != nil {
				return invalidf("messages[%d].content must be a string", i)
			}
		case "assistant":
			if c, ok := m["content"]; ok && !isNull(c) && c[0] != '"' {
				return invalidf("messages[%d].content must be a string", i)
			}
			if tc, ok := m["toolCalls"]; ok && !isNull(tc) && tc[0] != '[' {
				return invalidf("messages[%d].toolCalls must be an array", i)
			}
		}
		in.LastRole = role
		if role == "activity" {
			continue // the client never sends these back; a snapshot keeps them
		}
		b, err := json.Marshal(m)
		if err != nil {
			return invalidf("messages[%d] cannot be read", i)
		}
		in.Messages = append(in.Messages, b)
	}
	if lastUser >= 0 {
		if strings.TrimSpace(userText) == "" {
			return invalidf("The newest user message must contain non-blank text")
		}
		in.Input, in.UserKey = userText, userKey
	}
	// The trailing group of tool messages, after the last other message.
	start := len(items)
	for start > 0 {
		var m struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"toolCallId"`
			Content    json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(items[start-1], &m)
		if m.Role != "tool" {
			break
		}
		start--
	}
	for _, item := range items[start:] {
		var m struct {
			ToolCallID string          `json:"toolCallId"`
			Content    json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(item, &m)
		text, _ := anyContentText(m.Content, 0)
		in.ToolAnswers = append(in.ToolAnswers, toolAnswer{ToolCallID: m.ToolCallID, Output: toolOutput(text)})
	}
	return nil
}

// contentPart is one part of a message's array content.
type contentPart struct {
	Type string  `json:"type"`
	Text *string `json:"text"`
}

// text is the part's text; "" when it has none.
func (p contentPart) text() string {
	if p.Text == nil {
		return ""
	}
	return *p.Text
}

// contentParts reads a message's content: a string (one text part), or
// an array of parts. Anything else is refused, naming the parts the array
// may hold (partsKind).
func contentParts(raw json.RawMessage, i int, partsKind string) ([]contentPart, error) {
	if isNull(raw) {
		return nil, invalidf("messages[%d].content is required", i)
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, invalidf("messages[%d].content must be a string or an array of %s", i, partsKind)
		}
		return []contentPart{{Type: "text", Text: &s}}, nil
	}
	var parts []contentPart
	if raw[0] != '[' || json.Unmarshal(raw, &parts) != nil {
		return nil, invalidf("messages[%d].content must be a string or an array of %s", i, partsKind)
	}
	return parts, nil
}

// contentText reads a user message's content: a string, or an array of
// {"type":"text","text":...} parts, joined with newlines. Other parts are
// refused: this endpoint takes text only.
func contentText(raw json.RawMessage, i int) (string, error) {
	parts, err := contentParts(raw, i, "text parts")
	if err != nil {
		return "", err
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type != "text" {
			return "", invalidf("AG-UI currently accepts text content only")
		}
		if p.Text == nil {
			return "", invalidf("messages[%d].content has a text part without text", i)
		}
		texts = append(texts, *p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// anyContentText reads a tool message's content: a string, or content parts
// whose text parts are joined (other parts are skipped).
func anyContentText(raw json.RawMessage, i int) (string, error) {
	parts, err := contentParts(raw, i, "content parts")
	if err != nil {
		return "", err
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.text())
		}
	}
	return strings.Join(texts, "\n"), nil
}

// toolOutput is a tool message's content as a client tool's output: the
// JSON it holds when it is JSON, else the text as a JSON string.
func toolOutput(text string) json.RawMessage {
	trimmed := strings.TrimSpace(text)
	if trimmed != "" && json.Valid([]byte(trimmed)) {
		return jsonwrite.Compact(json.RawMessage(trimmed))
	}
	b, _ := json.Marshal(text)
	return b
}

func (in *runInput) parseState(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	var state map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &state) != nil {
		return invalidf("state must be a JSON object")
	}
	for k, v := range state {
		if reservedKey(k) {
			return invalidf("state contains a reserved key")
		}
		in.State[k] = jsonwrite.Compact(v)
	}
	return nil
}

// parseContext checks context: an array of {description, value} strings.
func parseContext(raw json.RawMessage) (json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	var items []map[string]json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, invalidf("context must be an array of {description, value} objects")
	}
	for i, item := range items {
		for _, key := range []string{"description", "value"} {
			var s string
			v, ok := item[key]
			if !ok || len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
				return nil, invalidf("context[%d].%s must be a string", i, key)
			}
		}
	}
	if len(items) == 0 {
		return nil, nil
	}
	return jsonwrite.Compact(raw), nil
}

// parseTools checks tools: an array of {name, description?, parameters?}
// with distinct, non-empty names.
func parseTools(raw json.RawMessage) (json.RawMessage, map[string]bool, error) {
	names := map[string]bool{}
	if isNull(raw) {
		return nil, names, nil
	}
	var items []map[string]json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, nil, invalidf("tools must be an array of {name, description, parameters} objects")
	}
	for i, item := range items {
		var name string
		v, ok := item["name"]
		if !ok || len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &name) != nil || strings.TrimSpace(name) == "" {
			return nil, nil, invalidf("tools[%d].name must be a non-empty string", i)
		}
		if names[name] {
			return nil, nil, invalidf("tools has two tools named %q", name)
		}
		names[name] = true
		if d, ok := item["description"]; ok && !isNull(d) && d[0] != '"' {
			return nil, nil, invalidf("tools[%d].description must be a string", i)
		}
		if p, ok := item["parameters"]; ok && !isNull(p) && p[0] != '{' {
			return nil, nil, invalidf("tools[%d].parameters must be a JSON Schema object", i)
		}
	}
	if len(items) == 0 {
		return nil, names, nil
	}
	return jsonwrite.Compact(raw), names, nil
}

// parseResume checks resume: [{interruptId, status, payload?}] with
// distinct IDs.
func parseResume(raw json.RawMessage) ([]resumeEntry, error) {
	if isNull(raw) {
		return nil, nil
	}
	var items []map[string]json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, invalidf("resume must be an array of {interruptId, status, payload?} objects")
	}
	seen := map[string]bool{}
	var out []resumeEntry
	for i, item := range items {
		var id, status string
		v, ok := item["interruptId"]
		if !ok || len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &id) != nil || id == "" {
			return nil, invalidf("resume[%d].interruptId must be a non-empty string", i)
		}
		if seen[id] {
			return nil, invalidf("resume names interrupt %q twice", id)
		}
		seen[id] = true
		s, ok := item["status"]
		if !ok || len(s) == 0 || s[0] != '"' || json.Unmarshal(s, &status) != nil || (status != "resolved" && status != "cancelled") {
			return nil, invalidf("resume[%d].status must be \"resolved\" or \"cancelled\"", i)
		}
		e := resumeEntry{InterruptID: id, Cancelled: status == "cancelled"}
		if p, ok := item["payload"]; ok {
			e.Payload = jsonwrite.Compact(p)
		}
		out = append(out, e)
	}
	return out, nil
}

func isEmptyObject(raw json.RawMessage) bool {
	return string(bytes.Join(bytes.Fields(raw), nil)) == "{}"
}
