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

// ---- 0.3, both bindings ----

// The objects both 0.3 bindings write alike but for their part (P) and
// message (M): JSON-RPC's say their kind, HTTP+JSON's (ProtoJSON of the
// 0.3 proto) leave Kind empty, so it is left out.

type status03Of[M any] struct {
	State     string `json:"state"`
	Message   *M     `json:"message,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
}

type artifact03Of[P any] struct {
	ArtifactID  string          `json:"artifactId"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parts       []P             `json:"parts"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	Extensions  []string        `json:"extensions,omitempty"`
}

type task03Of[P, M any] struct {
	Kind      string            `json:"kind,omitempty"`
	ID        string            `json:"id"`
	ContextID string            `json:"contextId"`
	Status    status03Of[M]     `json:"status"`
	Artifacts []artifact03Of[P] `json:"artifacts,omitempty"`
	History   []M               `json:"history,omitempty"`
	Metadata  json.RawMessage   `json:"metadata,omitempty"`
}

type statusUpdate03Of[M any] struct {
	Kind      string          `json:"kind,omitempty"`
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	Status    status03Of[M]   `json:"status"`
	Final     bool            `json:"final"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

type artifactUpdate03Of[P any] struct {
	Kind      string          `json:"kind,omitempty"`
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	Artifact  artifact03Of[P] `json:"artifact"`
	Append    bool            `json:"append,omitempty"`
	LastChunk bool            `json:"lastChunk,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// shapes03 writes tasks, statuses, artifacts and updates in one 0.3
// binding's shapes, with that binding's spelling of a state and its parts
// and messages.
type shapes03[P, M any] struct {
	kinds   bool // every object says its kind (JSON-RPC)
	state   func(string) string
	parts   func([]Part) []P
	message func(Message) M
}

// kind is k where objects say their kind, else empty (left out).
func (s shapes03[P, M]) kind(k string) string {
	if s.kinds {
		return k
	}
	return ""
}

func (s shapes03[P, M]) status(st TaskStatus) status03Of[M] {
	out := status03Of[M]{State: s.state(st.State), Timestamp: st.Timestamp}
	if st.Message != nil {
		m := s.message(*st.Message)
		out.Message = &m
	}
	return out
}

func (s shapes03[P, M]) artifact(a Artifact) artifact03Of[P] {
	return artifact03Of[P]{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description,
		Parts: s.parts(a.Parts), Metadata: a.Metadata, Extensions: a.Extensions}
}

func (s shapes03[P, M]) task(t Task) task03Of[P, M] {
	out := task03Of[P, M]{Kind: s.kind("task"), ID: t.ID, ContextID: t.ContextID, Status: s.status(t.Status), Metadata: t.Metadata}
	for _, a := range t.Artifacts {
		out.Artifacts = append(out.Artifacts, s.artifact(a))
	}
	for _, m := range t.History {
		out.History = append(out.History, s.message(m))
	}
	return out
}

// statusUpdate is e's status update; final also where e ends the stream.
func (s shapes03[P, M]) statusUpdate(e StreamEvent) statusUpdate03Of[M] {
	u := e.StatusUpdate
	return statusUpdate03Of[M]{Kind: s.kind("status-update"), TaskID: u.TaskID, ContextID: u.ContextID,
		Status: s.status(u.Status), Final: u.Final || e.final(), Metadata: u.Metadata}
}

func (s shapes03[P, M]) artifactUpdate(u *ArtifactUpdate) artifactUpdate03Of[P] {
	return artifactUpdate03Of[P]{Kind: s.kind("artifact-update"), TaskID: u.TaskID, ContextID: u.ContextID,
		Artifact: s.artifact(u.Artifact), Append: u.Append, LastChunk: u.LastChunk, Metadata: u.Metadata}
}

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
