package a2a

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/harnest/harnest/runtime"
)

// A task is one harnest response: its ID is the response ID and its
// contextId the session. The mapper folds the response's portable event
// stream into the task and says what A2A updates each event makes. The
// fold is a pure function of the events (IDs of generated messages come
// from event sequences), so every replica that reads the response's event
// log from the store arrives at the same task and the same updates:
//
//	response.created              -> status WORKING (after the SUBMITTED task)
//	response.text.delta           -> artifact "<taskId>-response", appended
//	response.thinking.delta       -> status WORKING, an agent message, metadata.harnest
//	response.agent_activity       -> status WORKING, metadata.harnest
//	response.agent_metadata       -> status WORKING, metadata.harnest
//	response.artifact             -> the artifact update of its chunk (append,
//	                                 lastChunk as the agent said; mapping_artifact.go)
//	response.completed            -> last chunk of the artifact, then COMPLETED,
//	                                 REJECTED or AUTH_REQUIRED (the agent's
//	                                 agent_activity said so), or INPUT_REQUIRED
//	                                 (approval, client tool), CANCELED,
//	                                 REJECTED (denied) or FAILED
//	error                         -> FAILED
//
// Tool calls and results, state deltas and decision results are never
// exposed.

// waitRef is the approval or client-tool request an input-required task
// waits for.
type waitRef struct {
	Kind string `json:"kind"` // human_approval or client_tool
	ID   string `json:"id"`
}

// mapper is a task snapshot and its position in the response's event log.
type mapper struct {
	task Task
	seq  int // the last event folded; -1 before response.created
	sub  int // 1 once a resume was recorded after seq
	wait *waitRef
	now  func() time.Time
}

// frame is one runtime event, from this replica's stream or the log.
type frame struct {
	Type         string
	Seq          int
	Delta        string
	Agent        string
	Activity     string
	Target       string
	Code         string
	Framework    string
	Model        string
	Provider     string
	FinishReason string
	Usage        *runtime.Usage
	Status       string // response.completed: the envelope's status
	Result       json.RawMessage
	ErrorCode    string // response.completed: error.code
	ErrorText    string // error: the sentence
	Action       *runtime.RequiredAction
	Artifact     *runtime.ArtifactInfo // response.artifact
	OutputText   string                // response.completed: the answer's text
	Outcome      string                // response.completed: runtime.ActivityRejected, ActivityAuthRequired or ""
	Retracted    *runtime.Retraction   // response.retracted
	Steered      *runtime.SteerInfo    // response.steered
}

// frameOf reads an event of this replica's stream without decoding JSON.
func frameOf(e runtime.Event) frame {
	f := frame{Type: e.Type, Seq: e.Sequence, Delta: e.Delta, Agent: e.Agent, Activity: e.Activity,
		Target: e.Target, Code: e.Code, Framework: e.Framework, Model: e.Model, Provider: e.Provider,
		FinishReason: e.FinishReason, Usage: e.Usage, ErrorText: e.Error, Artifact: e.Artifact, Retracted: e.Retracted, Steered: e.Steered}
	if env := e.Envelope; env != nil {
		f.Status, f.Result, f.Action = env.Status, env.Result, env.RequiredAction
		f.OutputText, f.Outcome = env.OutputText, outcomeOf(env.Output)
		if env.Usage != nil {
			f.Usage = env.Usage
		}
		if env.Error != nil {
			f.ErrorCode = env.Error.Code
		}
	}
	return f
}

// loggedFrame reads an event of the response's log, typed by the runtime.
func loggedFrame(fr runtime.Frame) frame {
	e, _ := fr.Event() // an event that does not decode folds as its type alone
	f := frameOf(e)
	f.Type, f.Seq = fr.Type, fr.Sequence
	return f
}

func newMapper(t Task, now func() time.Time) *mapper {
	return &mapper{task: t, seq: -1, now: now}
}

// version orders writes of the task to the store: later folds win, and a
// resume recorded after an event wins over that event's snapshot.
func (m *mapper) version() int64 { return int64(m.seq+1)*2 + int64(m.sub) }

// artifactID is the ID of the task's text artifact (the answer's text;
// the agent's own artifacts have the IDs it gave them).
func (m *mapper) artifactID() string { return m.task.ID + "-response" }

func (m *mapper) status(state string, msg *Message, meta json.RawMessage) StreamEvent {
	m.task.Status = TaskStatus{State: state, Message: msg, Timestamp: stamp(m.now())}
	u := &StatusUpdate{TaskID: m.task.ID, ContextID: m.task.ContextID, Status: m.task.Status, Metadata: meta}
	return StreamEvent{StatusUpdate: u}
}

// agentMessage is a message of the agent generated for event seq.
func (m *mapper) agentMessage(seq int, kind string, parts ...Part) *Message {
	return &Message{MessageID: m.task.ID + "-" + kind + "-" + strconv.Itoa(seq), TaskID: m.task.ID,
		ContextID: m.task.ContextID, Role: roleAgent, Parts: parts}
}

// harnestMeta is {"harnest": v}: the only namespace harnest adds.
func harnestMeta(v map[string]any) json.RawMessage {
	for k, x := range v {
		if s, ok := x.(string); ok && s == "" {
			delete(v, k)
		}
		if u, ok := x.(*runtime.Usage); ok && u == nil {
			delete(v, k)
		}
	}
	b, _ := json.Marshal(map[string]any{"harnest": v})
	return b
}

// working moves a submitted or resumed task to WORKING, with the update
// that says so; nil when it already works.
func (m *mapper) working(out []StreamEvent) []StreamEvent {
	if m.task.Status.State == stateWorking {
		return out
	}
	m.wait = nil
	return append(out, m.status(stateWorking, nil, nil))
}

// apply folds one event and returns the updates it makes, in order. Events
// at or before the snapshot's position are ignored, and so is everything
// after a terminal state.
func (m *mapper) apply(f frame) []StreamEvent {
	if f.Seq <= m.seq || terminal(m.task.Status.State) {
		return nil
	}
	m.seq, m.sub = f.Seq, 0
	var out []StreamEvent
	switch f.Type {
	case runtime.EventCreated:
		out = m.working(out)
	case runtime.EventTextDelta:
		if f.Delta == "" {
			return nil
		}
		out = m.working(out)
		out = append(out, m.appendText(f))
	case runtime.EventThinkingDelta:
		out = m.working(out)
		msg := m.agentMessage(f.Seq, "thinking", textPart(f.Delta))
		out = append(out, m.status(stateWorking, msg, harnestMeta(map[string]any{"type": "thinking", "agent": f.Agent})))
		m.task.Status.Message = nil // the snapshot keeps no passing thought
	case runtime.EventAgentActivity:
		out = m.working(out)
		out = append(out, m.status(stateWorking, nil, harnestMeta(map[string]any{"type": "agent_activity",
			"agent": f.Agent, "activity": f.Activity, "target": f.Target, "code": f.Code})))
	case runtime.EventAgentMetadata:
		out = m.working(out)
		out = append(out, m.status(stateWorking, nil, harnestMeta(map[string]any{"type": "agent_metadata",
			"agent": f.Agent, "framework": f.Framework, "usage": f.Usage, "model": f.Model,
			"provider": f.Provider, "finishReason": f.FinishReason})))
	case runtime.EventRetracted:
		// A lost replica's attempt is withdrawn and the turn runs again:
		// the response artifact starts over (the next text chunk replaces
		// it, append false), and a status update says what was withdrawn.
		out = m.working(out)
		m.dropArtifact(m.artifactID())
		meta := map[string]any{"type": "retracted"}
		if r := f.Retracted; r != nil {
			meta["fromSequence"], meta["toSequence"], meta["text"], meta["attempt"] = r.FromSequence, r.ToSequence, r.Text, r.Attempt
		}
		out = append(out, m.status(stateWorking, nil, harnestMeta(meta)))
	case runtime.EventSteered:
		// The turn took a message handed to it (steering): a status
		// update says which, in harnest's metadata.
		out = m.working(out)
		meta := map[string]any{"type": "steered"}
		if st := f.Steered; st != nil {
			meta["steerId"], meta["input"] = st.ID, st.Input
		}
		out = append(out, m.status(stateWorking, nil, harnestMeta(meta)))
	case runtime.EventArtifact:
		if f.Artifact == nil {
			return nil
		}
		out = m.working(out)
		out = append(out, m.applyArtifact(f.Artifact))
	case runtime.EventCompleted:
		out = m.completed(f, out)
	case runtime.EventError:
		text := f.ErrorText
		if text == "" {
			text = "Agent execution failed"
		}
		out = append(out, m.end(stateFailed, f.Seq, text))
	}
	return out
}

// appendText adds a text delta to the response artifact.
func (m *mapper) appendText(f frame) StreamEvent {
	var meta json.RawMessage
	if f.Agent != "" {
		meta = harnestMeta(map[string]any{"agent": f.Agent})
	}
	chunk := Artifact{ArtifactID: m.artifactID(), Name: "response", Parts: []Part{textPart(f.Delta)}, Metadata: meta}
	a := m.artifact()
	if a == nil {
		m.task.Artifacts = append(m.task.Artifacts, Artifact{ArtifactID: chunk.ArtifactID, Name: chunk.Name,
			Parts: []Part{textPart(f.Delta)}, Metadata: meta})
	} else {
		// The snapshot keeps the text as one part: the same text the
		// appended chunks make.
		if n := len(a.Parts); n > 0 && a.Parts[n-1].Text != nil {
			s := *a.Parts[n-1].Text + f.Delta
			a.Parts[n-1].Text = &s
		} else {
			a.Parts = append(a.Parts, textPart(f.Delta))
		}
	}
	return StreamEvent{ArtifactUpdate: &ArtifactUpdate{TaskID: m.task.ID, ContextID: m.task.ContextID,
		Artifact: chunk, Append: a != nil}}
}

func (m *mapper) artifact() *Artifact { return m.artifactByID(m.artifactID()) }

// completed maps response.completed: a boundary of the response.
func (m *mapper) completed(f frame, out []StreamEvent) []StreamEvent {
	switch f.Status {
	case runtime.StatusRequiresAction:
		return append(out, m.inputRequired(f))
	case runtime.StatusCompleted:
		var parts []Part
		if len(f.Result) > 0 && string(f.Result) != "null" {
			parts = append(parts, Part{Data: f.Result, MediaType: "application/json"})
		}
		a := m.artifact()
		if a != nil || len(parts) > 0 {
			if len(parts) == 0 {
				parts = []Part{textPart("")} // closes the artifact; adds no text
			}
			var meta json.RawMessage
			if f.Usage != nil {
				meta = harnestMeta(map[string]any{"usage": f.Usage})
			}
			chunk := Artifact{ArtifactID: m.artifactID(), Name: "response", Parts: parts, Metadata: meta}
			if a == nil {
				m.task.Artifacts = append(m.task.Artifacts, chunk)
			} else {
				for _, p := range parts {
					if p.Data != nil {
						a.Parts = append(a.Parts, p)
					}
				}
				if meta != nil {
					a.Metadata = meta
				}
			}
			out = append(out, StreamEvent{ArtifactUpdate: &ArtifactUpdate{TaskID: m.task.ID, ContextID: m.task.ContextID,
				Artifact: chunk, Append: a != nil, LastChunk: true}})
		}
		m.wait = nil
		if f.Outcome != "" {
			return m.endAsOutcome(f, out)
		}
		return append(out, m.status(stateCompleted, nil, nil))
	case runtime.StatusCancelled:
		return append(out, m.end(stateCanceled, f.Seq, "Task canceled"))
	case runtime.StatusDenied:
		return append(out, m.end(stateRejected, f.Seq, "Approval denied"))
	}
	text := "Agent execution failed"
	switch f.ErrorCode {
	case runtime.CodeTimedOut:
		text = "Agent timed out"
	case runtime.CodeNoOutput:
		text = "Agent completed without customer-facing output"
	case runtime.CodeReplicaLost, runtime.CodeLeaseLost:
		text = "The server running the task stopped"
	}
	return append(out, m.end(stateFailed, f.Seq, text))
}

// end moves the task to a terminal state with a sentence for the client.
func (m *mapper) end(state string, seq int, text string) StreamEvent {
	m.wait = nil
	msg := m.agentMessage(seq, "status", textPart(text))
	m.task.History = append(m.task.History, *msg)
	return m.status(state, msg, nil)
}

// inputRequired maps a requires_action boundary: the task waits for an
// approval or a client tool's output, which the client sends as a message
// on the same task.
func (m *mapper) inputRequired(f frame) StreamEvent {
	a := f.Action
	if a == nil {
		a = &runtime.RequiredAction{}
	}
	m.wait = &waitRef{Kind: a.Type, ID: a.ID}
	data := map[string]any{"type": a.Type, "id": a.ID, "callId": a.CallID, "expiresAt": a.ExpiresAt}
	var text string
	if a.Type == "client_tool" {
		data["name"] = a.Name
		data["arguments"] = a.Arguments
		text = "Run the client tool " + a.Name + " and send its output as the next message on this task."
	} else {
		data["action"] = a.Action
		data["message"] = a.Message
		if len(a.Arguments) > 0 {
			data["arguments"] = a.Arguments
		}
		text = strings.TrimSpace(a.Message + ` Reply on this task with "approve" or "deny".`)
		if len(a.Answers) > 0 { // approval_answer.go
			data["answers"], data["argumentsSchema"] = a.Answers, a.ArgumentsSchema
			text = strings.TrimSpace(a.Message + ` ` + richerAnswersText)
		}
	}
	b, _ := json.Marshal(data)
	msg := m.agentMessage(f.Seq, "input", textPart(text), Part{Data: b, MediaType: "application/json"})
	m.task.History = append(m.task.History, *msg)
	return m.status(stateInputRequired, msg, nil)
}

// resume records the client's answer to an input-required task: the
// message joins the history and the task works again.
func (m *mapper) resume(msg Message) StreamEvent {
	m.task.History = append(m.task.History, msg)
	m.wait = nil
	m.sub = 1
	return m.status(stateWorking, nil, nil)
}

// applyReceipt ends a task whose events are gone or never came (its
// replica died and the sweeper failed the response), from the receipt.
func (m *mapper) applyReceipt(env runtime.Envelope) []StreamEvent {
	switch {
	case env.Status == runtime.StatusInProgress, env.Status == runtime.StatusRequiresAction, env.Status == "":
		return nil
	case m.task.Status.State == stateAuthRequired:
		return nil // ended so by its response.completed: nothing comes after
	}
	f := frame{Type: runtime.EventCompleted, Seq: m.seq + 1, Status: env.Status, Result: env.Result, Usage: env.Usage,
		OutputText: env.OutputText, Outcome: outcomeOf(env.Output)}
	if env.Error != nil {
		f.ErrorCode = env.Error.Code
	}
	if env.Status == runtime.StatusCompleted && m.artifact() == nil && env.OutputText != "" {
		m.apply(frame{Type: runtime.EventTextDelta, Seq: m.seq + 1, Delta: env.OutputText})
		f.Seq = m.seq + 1
	}
	return m.apply(f)
}
