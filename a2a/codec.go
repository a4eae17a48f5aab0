package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// A codec writes the package's model in one binding's shapes: 1.0 (both
// bindings: ProtoJSON of lf.a2a.v1), 0.3 JSON-RPC (the JSON objects of the
// 0.3 spec, with kind discriminators and lower-case enums), and 0.3
// HTTP+JSON (ProtoJSON of the 0.3 gRPC proto: content, ROLE_USER,
// TASK_STATE_CANCELLED).
type codec interface {
	task(t Task) any
	// event is one stream item; result is what a send returns.
	event(e StreamEvent) any
	result(e StreamEvent) any
	list(l listResult) any
}

var (
	_ codec = codec10{}
	_ codec = codec03{}
	_ codec = codec03REST{}
)

type codec10 struct{}

func (codec10) task(t Task) any          { return t }
func (codec10) event(e StreamEvent) any  { return e }
func (codec10) result(e StreamEvent) any { return e }
func (codec10) list(l listResult) any    { return l }

// ---- 0.3 JSON-RPC ----

type codec03 struct{}

type file03 struct {
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Bytes    string `json:"bytes,omitempty"`
	URI      string `json:"uri,omitempty"`
}

type part03 struct {
	Kind     string          `json:"kind"`
	Text     *string         `json:"text,omitempty"`
	File     *file03         `json:"file,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

type message03 struct {
	Kind             string          `json:"kind"`
	MessageID        string          `json:"messageId"`
	ContextID        string          `json:"contextId,omitempty"`
	TaskID           string          `json:"taskId,omitempty"`
	Role             string          `json:"role"`
	Parts            []part03        `json:"parts"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	Extensions       []string        `json:"extensions,omitempty"`
	ReferenceTaskIDs []string        `json:"referenceTaskIds,omitempty"`
}

// state03 spells a state as 0.3 JSON-RPC does: "input-required".
func state03(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(s, "TASK_STATE_")), "_", "-")
}

func role03(r string) string {
	if r == roleAgent {
		return "agent"
	}
	return "user"
}

// dataObject makes a data value an object, as 0.3 requires: anything else
// is wrapped as {"value": ...}.
func dataObject(d json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(d)
	if len(t) > 0 && t[0] == '{' {
		return d
	}
	b, _ := json.Marshal(map[string]json.RawMessage{"value": d})
	return b
}

func parts03(ps []Part) []part03 {
	out := make([]part03, len(ps))
	for i, p := range ps {
		q := part03{Metadata: p.Metadata}
		switch {
		case p.Text != nil:
			q.Kind, q.Text = "text", p.Text
		case p.Data != nil:
			q.Kind, q.Data = "data", dataObject(p.Data)
		case p.Raw != nil:
			q.Kind = "file"
			q.File = &file03{Name: p.Filename, MimeType: p.MediaType, Bytes: base64.StdEncoding.EncodeToString(p.Raw)}
		default:
			q.Kind = "file"
			q.File = &file03{Name: p.Filename, MimeType: p.MediaType, URI: p.URL}
		}
		out[i] = q
	}
	return out
}

func message03Of(m Message) message03 {
	return message03{Kind: "message", MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID,
		Role: role03(m.Role), Parts: parts03(m.Parts), Metadata: m.Metadata, Extensions: m.Extensions,
		ReferenceTaskIDs: m.ReferenceTaskIDs}
}

// jsonrpc03 is the 0.3 JSON-RPC shapes: every object says its kind.
var jsonrpc03 = shapes03[part03, message03]{kinds: true, state: state03, parts: parts03, message: message03Of}

func (codec03) task(t Task) any { return jsonrpc03.task(t) }

func (c codec03) event(e StreamEvent) any {
	switch {
	case e.Task != nil:
		return jsonrpc03.task(*e.Task)
	case e.Message != nil:
		return message03Of(*e.Message)
	case e.StatusUpdate != nil:
		return jsonrpc03.statusUpdate(e)
	case e.ArtifactUpdate != nil:
		return jsonrpc03.artifactUpdate(e.ArtifactUpdate)
	}
	return nil
}

func (c codec03) result(e StreamEvent) any { return c.event(e) }

func (codec03) list(l listResult) any {
	tasks := make([]any, len(l.Tasks))
	for i, t := range l.Tasks {
		tasks[i] = jsonrpc03.task(t)
	}
	// tasks/list is not in the 0.3 spec; its one client (a2a-go 0.3) reads
	// snake_case, others camelCase: both are written.
	return map[string]any{"tasks": tasks, "nextPageToken": l.NextPageToken, "pageSize": l.PageSize, "totalSize": l.TotalSize,
		"next_page_token": l.NextPageToken, "page_size": l.PageSize, "total_size": l.TotalSize}
}

// ---- 0.3 HTTP+JSON (ProtoJSON of the 0.3 gRPC proto) ----

type codec03REST struct{}

type fileP struct {
	FileWithURI   string `json:"fileWithUri,omitempty"`
	FileWithBytes string `json:"fileWithBytes,omitempty"`
	MimeType      string `json:"mimeType,omitempty"`
	Name          string `json:"name,omitempty"`
}

type dataP struct {
	Data json.RawMessage `json:"data"`
}

type partP struct {
	Text     *string         `json:"text,omitempty"`
	File     *fileP          `json:"file,omitempty"`
	Data     *dataP          `json:"data,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

type messageP struct {
	MessageID  string          `json:"messageId"`
	ContextID  string          `json:"contextId,omitempty"`
	TaskID     string          `json:"taskId,omitempty"`
	Role       string          `json:"role"`
	Content    []partP         `json:"content"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Extensions []string        `json:"extensions,omitempty"`
}

type streamP struct {
	Task           *taskP                      `json:"task,omitempty"`
	Message        *messageP                   `json:"message,omitempty"`
	StatusUpdate   *statusUpdate03Of[messageP] `json:"statusUpdate,omitempty"`
	ArtifactUpdate *artifactUpdate03Of[partP]  `json:"artifactUpdate,omitempty"`
}

type taskP = task03Of[partP, messageP]

// stateP spells a state as the 0.3 proto does (CANCELLED with two Ls).
func stateP(s string) string {
	if s == stateCanceled {
		return "TASK_STATE_CANCELLED"
	}
	return s
}

func partsP(ps []Part) []partP {
	out := make([]partP, len(ps))
	for i, p := range ps {
		q := partP{Metadata: p.Metadata}
		switch {
		case p.Text != nil:
			q.Text = p.Text
		case p.Data != nil:
			q.Data = &dataP{Data: dataObject(p.Data)}
		case p.Raw != nil:
			q.File = &fileP{FileWithBytes: base64.StdEncoding.EncodeToString(p.Raw), MimeType: p.MediaType, Name: p.Filename}
		default:
			q.File = &fileP{FileWithURI: p.URL, MimeType: p.MediaType, Name: p.Filename}
		}
		out[i] = q
	}
	return out
}

func messagePOf(m Message) messageP {
	return messageP{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: m.Role,
		Content: partsP(m.Parts), Metadata: m.Metadata, Extensions: m.Extensions}
}

// rest03 is the 0.3 HTTP+JSON shapes: no kinds.
var rest03 = shapes03[partP, messageP]{state: stateP, parts: partsP, message: messagePOf}

func (codec03REST) task(t Task) any { return rest03.task(t) }

func (codec03REST) event(e StreamEvent) any {
	var out streamP
	switch {
	case e.Task != nil:
		t := rest03.task(*e.Task)
		out.Task = &t
	case e.Message != nil:
		m := messagePOf(*e.Message)
		out.Message = &m
	case e.StatusUpdate != nil:
		u := rest03.statusUpdate(e)
		out.StatusUpdate = &u
	case e.ArtifactUpdate != nil:
		u := rest03.artifactUpdate(e.ArtifactUpdate)
		out.ArtifactUpdate = &u
	}
	return out
}

func (c codec03REST) result(e StreamEvent) any { return c.event(e) }

func (codec03REST) list(l listResult) any {
	tasks := make([]taskP, len(l.Tasks))
	for i, t := range l.Tasks {
		tasks[i] = rest03.task(t)
	}
	return map[string]any{"tasks": tasks, "nextPageToken": l.NextPageToken, "pageSize": l.PageSize, "totalSize": l.TotalSize}
}
