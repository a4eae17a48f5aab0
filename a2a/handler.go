package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/harnest/harnest/runtime"
)

// The operations every binding calls, whatever its wire shapes: send
// (blocking or not) and stream here; get, list, cancel and subscribe in
// task_reads.go. They work from
// any replica: a task's truth is its response's receipt and event log in
// the store, and the stored task is a snapshot of their fold (mapping.go).

// clone copies a task deeply enough that the mapper can go on folding
// into the original while a caller encodes the copy.
func (t Task) clone() Task {
	c := t
	c.History = append([]Message(nil), t.History...)
	c.Artifacts = make([]Artifact, len(t.Artifacts))
	for i, a := range t.Artifacts {
		a.Parts = append([]Part(nil), a.Parts...)
		c.Artifacts[i] = a
	}
	if len(c.Artifacts) == 0 {
		c.Artifacts = nil
	}
	return c
}

// start starts a response for a new task or message, the whole message
// handed to the agent (mapping_input.go). A contextId the user has no
// session for becomes a new session with that ID.
func (s *Server) start(ctx context.Context, p runtime.Principal, req sendRequest, stream bool) (*runtime.Response, error) {
	sessionID := req.Message.ContextID
	if hasFileBytes(req.Message) {
		// A file with bytes becomes an asset of the session, which must
		// exist before the turn does.
		var err error
		if sessionID, err = s.ensureSession(ctx, p, sessionID); err != nil {
			return nil, err
		}
	}
	input, parts, err := s.inputOf(ctx, p, sessionID, req.Message)
	if err != nil {
		return nil, err
	}
	metadata := req.Message.Metadata
	if metadata == nil {
		metadata = req.Metadata
	}
	rr := runtime.ResponseRequest{Input: input, Parts: parts, SessionID: sessionID, Stream: stream, Background: stream, Metadata: metadata,
		Transport: runtime.TransportA2A, Message: turnMessageOf(req.Message), OnBusy: runtime.OnBusyOf(metadata), KeepEvents: !stream}
	resp, err := s.svc.StartResponse(ctx, p, rr)
	if err != nil && rr.SessionID != "" && runtime.AsError(err).Code == "session_not_found" {
		if _, cerr := s.svc.CreateSession(ctx, p, rr.SessionID, nil); cerr != nil && !errors.Is(cerr, runtime.ErrConflict) {
			return nil, cerr
		}
		resp, err = s.svc.StartResponse(ctx, p, rr)
	}
	return resp, err
}

// newTask is the submitted task of a new response, with the user's
// message as its history.
func (s *Server) newTask(resp *runtime.Response, msg Message) Task {
	msg.TaskID, msg.ContextID = resp.ID, resp.SessionID
	return Task{ID: resp.ID, ContextID: resp.SessionID,
		Status: TaskStatus{State: stateSubmitted, Timestamp: stamp(s.now())}, History: []Message{msg}}
}

// save stores a snapshot; the caller may be gone, the snapshot still goes.
func (s *Server) save(p runtime.Principal, m *mapper) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.tasks.put(ctx, p.UserID, m); err != nil {
		s.log.Warn("a2a: cannot store task", "taskId", m.task.ID, "err", err)
	}
}

// fold maps one event and hands its updates to the feed, storing the task
// before an update that ends the segment, so that a client that reads the
// task after that update sees it. settled, when set, waits until the
// runtime has recorded the boundary (and freed the session) before the
// client hears of it. It reports the end of the segment.
func (s *Server) fold(p runtime.Principal, m *mapper, f *feed, fr frame, settled <-chan struct{}) bool {
	end := false
	for _, e := range m.apply(fr) {
		if e.final() {
			s.save(p, m)
			if settled != nil {
				<-settled
			}
			end = true
		}
		f.push(e)
		s.taskUpdated(p, m, e)
	}
	return end
}

// send answers a non-streaming send: a direct message for a blocking send
// that starts no task and completes, a task otherwise.
func (s *Server) send(ctx context.Context, p runtime.Principal, req sendRequest) (StreamEvent, error) {
	if req.Message.TaskID != "" || req.ReturnImmediately {
		var f *feed
		var err error
		if req.Message.TaskID != "" {
			f, err = s.continueTask(ctx, p, req)
		} else {
			f, err = s.startTask(ctx, p, req)
		}
		if err != nil {
			return StreamEvent{}, err
		}
		var t Task
		if req.ReturnImmediately {
			t = f.first.clone()
		} else if t, err = f.wait(ctx); err != nil {
			return StreamEvent{}, err
		}
		t = t.withHistory(req.HistoryLength)
		return StreamEvent{Task: &t}, nil
	}
	resp, err := s.start(ctx, p, req, false)
	if err != nil {
		return StreamEvent{}, err
	}
	out := resp.Outcome()
	if out.Err == nil && out.Envelope.Status == runtime.StatusCompleted && !wantsTask(out.Envelope) {
		return StreamEvent{Message: directMessage(resp, out.Envelope)}, nil
	}
	// It became a task after all: it waits for input, it failed, or the
	// agent's answer is one (artifacts, a rejection, ...).
	m := newMapper(s.newTask(resp, req.Message), s.now)
	if !m.foldOutcome(out) {
		if _, err := s.refresh(context.WithoutCancel(ctx), p, m, nil); err != nil {
			return StreamEvent{}, err
		}
	}
	s.save(p, m)
	t := m.task.clone().withHistory(req.HistoryLength)
	return StreamEvent{Task: &t}, nil
}

// directMessage is the reply to a blocking send that completed without a
// task.
func directMessage(resp *runtime.Response, env runtime.Envelope) *Message {
	// The message, its parts, its text and its metadata are made
	// together: every blocking send answers with one.
	reply := &struct {
		msg   Message
		parts [2]Part
		text  string
		meta  [replyMetaRoom]byte
	}{}
	parts := reply.parts[:0]
	if env.OutputText != "" {
		reply.text = env.OutputText
		parts = append(parts, Part{Text: &reply.text, MediaType: "text/plain"})
	}
	if len(env.Result) > 0 && string(env.Result) != "null" {
		parts = append(parts, Part{Data: env.Result, MediaType: "application/json"})
	}
	if len(parts) == 0 {
		parts = append(parts, Part{Text: &reply.text}) // an empty text
	}
	reply.msg = Message{MessageID: resp.ID + "-reply", ContextID: resp.SessionID, Role: roleAgent, Parts: parts,
		Metadata: appendReplyMeta(reply.meta[:0], resp.ID, env.Usage)}
	return &reply.msg
}

// replyMetaRoom is the room a direct message has for its metadata: a
// response ID and usage fit (longer metadata gets its own array).
const replyMetaRoom = 160

// replyMeta is a direct message's metadata, {"harnest": {"responseId",
// "usage"?}}, as harnestMeta writes it (appended: every blocking send
// writes one).
func replyMeta(responseID string, usage *runtime.Usage) json.RawMessage {
	return appendReplyMeta(make([]byte, 0, 64+len(responseID)), responseID, usage)
}

// openStream starts or continues a task for a streaming send. Errors here
// mean nothing was streamed yet.
func (s *Server) openStream(ctx context.Context, p runtime.Principal, req sendRequest) (*feed, error) {
	if !s.streaming {
		return nil, errUnsupported("This agent does not stream (its card says capabilities.streaming is false)")
	}
	if req.Message.TaskID != "" {
		return s.continueTask(ctx, p, req)
	}
	return s.startTask(ctx, p, req)
}

// startTask starts a response as a task that outlives the request: it is
// stored as submitted before anyone hears of it, and a pump on this
// replica folds its events into the feed and the store.
func (s *Server) startTask(ctx context.Context, p runtime.Principal, req sendRequest) (*feed, error) {
	resp, err := s.start(ctx, p, req, true)
	if err != nil {
		return nil, err
	}
	m := newMapper(s.newTask(resp, req.Message), s.now)
	if err := s.tasks.put(ctx, p.UserID, m); err != nil {
		resp.Cancel()
		go resp.Each(func(runtime.Event) error { return nil })
		return nil, errUnavailable("The state store is unavailable; retry shortly")
	}
	s.push.known(p.UserID, m.task.ID, nil, s.now()) // a new task has no configs yet
	s.storeSendPush(ctx, p, m, req)
	f := newFeed(m.task)
	go func() {
		resp.Each(func(e runtime.Event) error {
			// The local stream hears of a boundary before the runtime
			// records it; the log (below) only after.
			s.fold(p, m, f, frameOf(e), resp.Boundary())
			return nil
		})
		if st := m.task.Status.State; !terminal(st) && !interrupted(st) {
			// The segment ended without a boundary event: end it from
			// the receipt (none when another replica claimed the run).
			if receipt, recorded := resp.Outcome().Receipt(); recorded {
				for _, e := range m.applyReceipt(receipt) {
					s.save(p, m)
					f.push(e)
				}
			}
		}
		f.close(m.task)
	}()
	return f, nil
}

// continueTask answers an input-required task with the message: the
// approval decision or the client tool's output. Any replica may take it;
// the response resumes where it runs, and a pump here follows its log to
// the next boundary.
func (s *Server) continueTask(ctx context.Context, p runtime.Principal, req sendRequest) (*feed, error) {
	id := req.Message.TaskID
	rec, found, err := s.tasks.get(ctx, p.UserID, id)
	if err != nil {
		return nil, errUnavailable("The state store is unavailable; retry shortly")
	}
	if !found {
		return nil, errTaskNotFound(id)
	}
	if c := req.Message.ContextID; c != "" && c != rec.Task.ContextID {
		return nil, errInvalidParams(fmt.Sprintf("message.contextId %q does not match the task's contextId", clip(c)))
	}
	m := rec.mapper(s.now)
	if _, err := s.refresh(ctx, p, m, nil); err != nil {
		return nil, err
	}
	switch st := m.task.Status.State; {
	case terminal(st):
		return nil, errUnsupported(fmt.Sprintf("Task %s is finished (%s); send a message without taskId to start a new task", clip(id), state03(st)))
	case st != stateInputRequired || m.wait == nil:
		return nil, errUnsupported(fmt.Sprintf("Task %s is not waiting for input", clip(id)))
	}
	res, err := s.answer(ctx, p, *m.wait, req.Message)
	if err != nil {
		return nil, err
	}
	msg := req.Message
	msg.TaskID, msg.ContextID = m.task.ID, m.task.ContextID
	m.resume(msg)
	s.save(p, m)
	f := newFeed(m.task)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.followTimeout)
		defer cancel()
		err := s.svc.Follow(ctx, p, m.task.ContextID, m.task.ID, res.After, func(fr runtime.Frame) (bool, error) {
			return s.fold(p, m, f, loggedFrame(fr), nil), nil
		})
		if err != nil && !terminal(m.task.Status.State) && !interrupted(m.task.Status.State) {
			s.log.Warn("a2a: following a resumed task failed", "taskId", m.task.ID, "err", err)
		}
		f.close(m.task)
	}()
	return f, nil
}

// answer hands the message to the wait as its answer: for an approval, one
// part saying approve or deny (text), or any answer (data {"decision":
// ...}, approval_answer.go); for a
// client tool, one part that is its output (text as a JSON string, or
// data).
func (s *Server) answer(ctx context.Context, p runtime.Principal, w waitRef, msg Message) (runtime.Resumption, error) {
	if len(msg.Parts) != 1 {
		return runtime.Resumption{}, errInvalidParams("An answer to an input-required task is exactly one part")
	}
	part := msg.Parts[0]
	var res runtime.Resumption
	var err error
	switch w.Kind {
	case "client_tool":
		var output json.RawMessage
		switch {
		case part.Text != nil:
			output, _ = json.Marshal(*part.Text)
		case part.Data != nil:
			output = part.Data
		default:
			return res, errContentType("A client tool's output is a text or data part")
		}
		res, err = s.svc.AnswerClientTool(ctx, p, w.ID, output)
	default:
		answer, aerr := approvalAnswer(part) // approval_answer.go
		if aerr != nil {
			return res, aerr
		}
		res, err = s.svc.AnswerApprovalWith(ctx, p, w.ID, answer)
	}
	if err != nil {
		e := runtime.AsError(err)
		if errors.Is(e, runtime.ErrConflict) || errors.Is(e, runtime.ErrNotFound) {
			return res, errUnsupported(e.Detail)
		}
		return res, asA2A(err)
	}
	return res, nil
}
