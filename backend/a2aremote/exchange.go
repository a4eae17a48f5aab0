package a2aremote

import (
	"encoding/json"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/harnest/harnest/runtime"
)

// exchange folds what the remote agent sends during one turn (a message,
// task snapshots, status and artifact updates) into the turn's events:
//
//	artifact text parts              -> response.text.delta
//	artifact data parts              -> response.decision_result
//	artifact file parts              -> response.agent_activity (the file's URL or name)
//	status message while working     -> response.agent_activity
//	status message of input-required -> the turn's answer (text)
//	a message answer                 -> its parts, as for artifacts
//
// A task snapshot's artifacts count only once the task is final (its
// chunks may have streamed already: each artifact is emitted once).
type exchange struct {
	emit  runtime.Emit
	agent string // the remote's name, on activity events

	taskID    a2a.TaskID
	contextID string
	state     a2a.TaskState
	answered  bool         // the remote answered with a message (no task)
	statusMsg *a2a.Message // the last status message of the task
	lastNote  string       // the ID of the last status message shown as activity (polls repeat it)
	seen      map[a2a.ArtifactID]bool
	lastArt   a2a.ArtifactID
	text      strings.Builder // the text emitted so far (for separators and the no-text fallback)
	lastData  any
	received  int // events received

	// continuing is the task the message answers: a server may open the
	// stream with that task as it was (still input-required), which is not
	// the answer to this message.
	continuing a2a.TaskID
	staleNote  string // the status message ID of that task as it was

	// journal records the remote task as the turn's resume point
	// (resume.go); recorded once it did.
	journal  *runtime.Journal
	recorded bool
}

func newExchange(emit runtime.Emit, agent string, continuing a2a.TaskID) *exchange {
	return &exchange{emit: emit, agent: agent, seen: map[a2a.ArtifactID]bool{}, continuing: continuing}
}

// interrupted reports a state in which the task waits for the client.
func interrupted(s a2a.TaskState) bool {
	return s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
}

// final reports an outcome: a message, or a task in a terminal or
// interrupted state.
func (x *exchange) final() bool {
	return x.answered || x.state.Terminal() || interrupted(x.state)
}

// running reports a remote task that would go on without us: one that a
// turn which ends now must cancel.
func (x *exchange) running() bool { return x.taskID != "" && !x.final() }

// ids records the task and context the remote names.
func (x *exchange) ids(task a2a.TaskID, context string) {
	if task != "" {
		x.taskID = task
	}
	if context != "" {
		x.contextID = context
	}
}

// apply folds one event from the remote.
func (x *exchange) apply(ev a2a.Event) error {
	x.received++
	switch e := ev.(type) {
	case *a2a.Message:
		x.ids("", e.ContextID)
		x.answered = true
		return x.parts("", e.Parts)
	case *a2a.Task:
		x.ids(e.ID, e.ContextID)
		if x.stale(e) {
			return nil // the task as the message found it
		}
		return x.task(e)
	case *a2a.TaskStatusUpdateEvent:
		x.ids(e.TaskID, e.ContextID)
		return x.status(e.Status)
	case *a2a.TaskArtifactUpdateEvent:
		x.ids(e.TaskID, e.ContextID)
		if e.Artifact == nil {
			return nil
		}
		x.seen[e.Artifact.ID] = true
		return x.parts(e.Artifact.ID, e.Artifact.Parts)
	}
	return nil
}

// stale reports a snapshot of the continued task as the message found it:
// the first event, still interrupted, or a later one (a poll before the
// remote took the message) with the same status message.
func (x *exchange) stale(t *a2a.Task) bool {
	if t.ID != x.continuing || !interrupted(t.Status.State) {
		return false
	}
	note := ""
	if t.Status.Message != nil {
		note = t.Status.Message.ID
	}
	if x.received == 1 {
		x.staleNote = note
		return true
	}
	return note != "" && note == x.staleNote
}

// task folds a snapshot: its status, and once final its artifacts not
// seen yet.
func (x *exchange) task(t *a2a.Task) error {
	if err := x.status(t.Status); err != nil {
		return err
	}
	if !x.final() {
		return nil
	}
	for _, a := range t.Artifacts {
		if a == nil || x.seen[a.ID] {
			continue
		}
		x.seen[a.ID] = true
		if err := x.parts(a.ID, a.Parts); err != nil {
			return err
		}
	}
	return nil
}

// status folds a status: a message while the task works is activity; the
// message of a final state is kept for finish.
func (x *exchange) status(s a2a.TaskStatus) error {
	if s.State != a2a.TaskStateUnspecified {
		x.state = s.State
	}
	if s.Message == nil {
		return nil
	}
	if x.final() {
		x.statusMsg = s.Message
		return nil
	}
	text := partsText(s.Message.Parts)
	if text == "" || (s.Message.ID != "" && s.Message.ID == x.lastNote) {
		return nil
	}
	x.lastNote = s.Message.ID
	return x.emit(runtime.Event{Type: runtime.EventAgentActivity, Agent: x.agent, Activity: text, Code: stateName(x.state)})
}

// parts emits the parts of an artifact (or a message answer).
func (x *exchange) parts(artifact a2a.ArtifactID, parts a2a.ContentParts) error {
	for _, p := range parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			if err := x.textDelta(artifact, string(c)); err != nil {
				return err
			}
		case a2a.Data:
			value, err := json.Marshal(c.Value)
			if err != nil {
				continue
			}
			x.lastData = c.Value
			if err := x.emit(runtime.Event{Type: runtime.EventDecisionResult, Agent: x.agent, Value: value}); err != nil {
				return err
			}
		case a2a.URL, a2a.Raw:
			target := p.Filename
			if u, ok := c.(a2a.URL); ok {
				target = string(u)
			}
			if err := x.emit(runtime.Event{Type: runtime.EventAgentActivity, Agent: x.agent,
				Activity: "sent a file", Target: target, Code: p.MediaType}); err != nil {
				return err
			}
		}
	}
	return nil
}

// textDelta emits text; text of another artifact than the last one starts
// a new paragraph.
func (x *exchange) textDelta(artifact a2a.ArtifactID, s string) error {
	if s == "" {
		return nil
	}
	if artifact != x.lastArt && x.text.Len() > 0 && !strings.HasSuffix(x.text.String(), "\n") {
		s = "\n\n" + s
	}
	x.lastArt = artifact
	x.text.WriteString(s)
	return x.emit(runtime.Event{Type: runtime.EventTextDelta, Delta: s})
}

// finish ends a turn whose exchange is final: the status message of a
// completed task or the question of an input-required one becomes the
// answer when nothing else did; a failed, rejected or auth-required task
// is the turn's error.
func (x *exchange) finish() error {
	switch {
	case x.answered, x.state == a2a.TaskStateCompleted:
		if x.text.Len() == 0 && x.statusMsg != nil {
			if err := x.parts("status", x.statusMsg.Parts); err != nil {
				return err
			}
		}
		if x.text.Len() == 0 && x.lastData != nil {
			// Data alone is still an answer: its JSON is the text.
			b, _ := json.Marshal(x.lastData)
			return x.textDelta("data", string(b))
		}
		return nil
	case x.state == a2a.TaskStateInputRequired:
		if x.statusMsg != nil && partsText(x.statusMsg.Parts) != "" {
			return x.textDelta("question", partsText(x.statusMsg.Parts))
		}
		return x.textDelta("question", "The remote agent asks for more input.")
	case x.state == a2a.TaskStateAuthRequired:
		return errAuthRequired()
	case x.state == a2a.TaskStateRejected:
		return errRejected()
	case x.state == a2a.TaskStateCanceled:
		return errCancelledByRemote()
	}
	return errFailed()
}

// next is the session's remote conversation after this turn: the context,
// and the task while it waits for input.
func (x *exchange) next(url string) sessionState {
	s := sessionState{URL: url, ContextID: x.contextID}
	if x.state == a2a.TaskStateInputRequired && !x.answered {
		s.TaskID = string(x.taskID)
	}
	return s
}

// remoteWords is the text of the last status message, for the log.
func (x *exchange) remoteWords() string {
	if x.statusMsg == nil {
		return ""
	}
	s := partsText(x.statusMsg.Parts)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// partsText joins the text parts.
func partsText(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		if p == nil {
			continue
		}
		if t, ok := p.Content.(a2a.Text); ok {
			if b.Len() > 0 && t != "" {
				b.WriteString("\n")
			}
			b.WriteString(string(t))
		}
	}
	return b.String()
}

// stateName is a state as a short lower-case word: "working".
func stateName(s a2a.TaskState) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
}
