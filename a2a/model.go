package a2a

import (
	"encoding/json"
	"strings"
	"time"
)

// The package keeps one model of A2A objects, in the 1.0 shape (ProtoJSON
// of lf.a2a.v1: camelCase fields, enum names such as TASK_STATE_WORKING and
// ROLE_USER, a Part that is exactly one of text, raw, url or data). The 1.0
// bindings encode it as it is; the 0.3 bindings convert it (codec.go).

// Task states, as 1.0 names them.
const (
	stateSubmitted     = "TASK_STATE_SUBMITTED"
	stateWorking       = "TASK_STATE_WORKING"
	stateCompleted     = "TASK_STATE_COMPLETED"
	stateFailed        = "TASK_STATE_FAILED"
	stateCanceled      = "TASK_STATE_CANCELED"
	stateInputRequired = "TASK_STATE_INPUT_REQUIRED"
	stateRejected      = "TASK_STATE_REJECTED"
	stateAuthRequired  = "TASK_STATE_AUTH_REQUIRED"
)

// Message roles, as 1.0 names them.
const (
	roleUser  = "ROLE_USER"
	roleAgent = "ROLE_AGENT"
)

// allStates are the states a task can be listed by.
var allStates = []string{stateSubmitted, stateWorking, stateCompleted, stateFailed,
	stateCanceled, stateInputRequired, stateRejected, stateAuthRequired}

// terminal reports a state after which a task never changes.
func terminal(state string) bool {
	switch state {
	case stateCompleted, stateFailed, stateCanceled, stateRejected:
		return true
	}
	return false
}

// interrupted reports a state that waits for the client.
func interrupted(state string) bool {
	return state == stateInputRequired || state == stateAuthRequired
}

// Part is one piece of a message or artifact: exactly one of Text, Raw, URL
// or Data.
type Part struct {
	Text      *string         `json:"text,omitempty"`
	Raw       []byte          `json:"raw,omitempty"`
	URL       string          `json:"url,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

func textPart(s string) Part { return Part{Text: &s} }

// Message is one message between a client and the agent.
type Message struct {
	MessageID        string          `json:"messageId"`
	ContextID        string          `json:"contextId,omitempty"`
	TaskID           string          `json:"taskId,omitempty"`
	Role             string          `json:"role"`
	Parts            []Part          `json:"parts"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	Extensions       []string        `json:"extensions,omitempty"`
	ReferenceTaskIDs []string        `json:"referenceTaskIds,omitempty"`
}

// TaskStatus is a task's state with an optional message and its time.
type TaskStatus struct {
	State     string   `json:"state"`
	Message   *Message `json:"message,omitempty"`
	Timestamp string   `json:"timestamp,omitempty"`
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string          `json:"artifactId"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parts       []Part          `json:"parts"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	Extensions  []string        `json:"extensions,omitempty"`
}

// Task is the unit of work a client follows: one harnest response.
type Task struct {
	ID        string          `json:"id"`
	ContextID string          `json:"contextId"`
	Status    TaskStatus      `json:"status"`
	Artifacts []Artifact      `json:"artifacts,omitempty"`
	History   []Message       `json:"history,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// StatusUpdate says a task's status changed. Final is the 0.3 end marker
// (1.0 closes the stream instead); it is not part of the 1.0 encoding.
type StatusUpdate struct {
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	Status    TaskStatus      `json:"status"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	Final     bool            `json:"-"`
}

// ArtifactUpdate adds to (Append) or replaces an artifact of a task.
type ArtifactUpdate struct {
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	Artifact  Artifact        `json:"artifact"`
	Append    bool            `json:"append,omitempty"`
	LastChunk bool            `json:"lastChunk,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// StreamEvent is one item of a stream (1.0 StreamResponse), and the result
// of a send: exactly one field is set.
type StreamEvent struct {
	Task           *Task           `json:"task,omitempty"`
	Message        *Message        `json:"message,omitempty"`
	StatusUpdate   *StatusUpdate   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *ArtifactUpdate `json:"artifactUpdate,omitempty"`
}

// final reports an event after which a stream closes: a terminal or
// interrupted status, or a direct message.
func (e StreamEvent) final() bool {
	switch {
	case e.Message != nil:
		return true
	case e.StatusUpdate != nil:
		s := e.StatusUpdate.Status.State
		return terminal(s) || interrupted(s)
	}
	return false
}

// listResult is a page of tasks (1.0 ListTasksResponse).
type listResult struct {
	Tasks         []Task `json:"tasks"`
	NextPageToken string `json:"nextPageToken"`
	PageSize      int    `json:"pageSize"`
	TotalSize     int    `json:"totalSize"`
}

// sendRequest is a send, whatever binding carried it.
type sendRequest struct {
	Message           Message
	ReturnImmediately bool
	HistoryLength     *int
	Metadata          json.RawMessage
	Push              *sendPush // a push config for the task (push_send.go)
}

// listRequest is a ListTasks query.
type listRequest struct {
	ContextID        string
	Status           string // a 1.0 state name, or ""
	PageSize         int
	PageToken        string
	HistoryLength    *int
	After            time.Time // statusTimestampAfter; zero for none
	IncludeArtifacts bool
}

// withHistory returns the task with at most n history messages (nil keeps
// all, 0 drops the field).
func (t Task) withHistory(n *int) Task {
	if n == nil {
		return t
	}
	switch {
	case *n <= 0:
		t.History = nil
	case len(t.History) > *n:
		t.History = t.History[len(t.History)-*n:]
	}
	return t
}

// stamp formats a status time: ISO 8601 in UTC with milliseconds.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// normalizeState reads a state filter in any spelling clients use: the 1.0
// and 0.3 REST enum names, or the 0.3 JSON-RPC words.
func normalizeState(s string) (string, bool) {
	u := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), "-", "_"))
	if !strings.HasPrefix(u, "TASK_STATE_") {
		u = "TASK_STATE_" + u
	}
	if u == "TASK_STATE_CANCELLED" {
		u = stateCanceled
	}
	for _, st := range allStates {
		if u == st {
			return st, true
		}
	}
	return "", false
}
