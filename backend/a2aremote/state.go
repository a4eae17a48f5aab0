package a2aremote

import (
	"encoding/json"

	"github.com/harnest/harnest/runtime"
)

// StateKey is the session state key under which the backend keeps the
// remote conversation, {"url", "contextId", "taskId"?}: the remote context
// of the session, and the remote task that waits for input (set after an
// input-required turn, cleared once the task has moved on).
const StateKey = "a2aRemote"

// sessionState is the value under StateKey.
type sessionState struct {
	// URL is the configured remote, so that a session that talked to
	// another remote (the configuration changed) starts afresh.
	URL       string `json:"url"`
	ContextID string `json:"contextId,omitempty"`
	TaskID    string `json:"taskId,omitempty"`
}

// readState reads the session's remote conversation with the remote at
// url; a missing, unreadable or foreign one is none.
func readState(state map[string]json.RawMessage, url string) sessionState {
	var s sessionState
	raw, ok := state[StateKey]
	if !ok || json.Unmarshal(raw, &s) != nil || s.URL != url {
		return sessionState{URL: url}
	}
	return s
}

// delta is the state_delta event that records next, or false when the
// session already holds it.
func (s sessionState) delta(prev sessionState) (runtime.Event, bool) {
	if s == prev || s.ContextID == "" {
		return runtime.Event{}, false
	}
	b, err := json.Marshal(s)
	if err != nil {
		return runtime.Event{}, false
	}
	return runtime.Event{Type: runtime.EventStateDelta, StateDelta: map[string]json.RawMessage{StateKey: b}}, true
}
