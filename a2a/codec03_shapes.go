package a2a

import "encoding/json"

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
