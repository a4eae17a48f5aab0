package live

import (
	"encoding/json"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/runtime"
)

// Kinds of wait a response can be suspended on.
const (
	waitApproval   = "human_approval"
	waitClientTool = "client_tool"
)

// liveResponse is the socket's active response. Its fields after the IDs
// are guarded by the conn's lock.
type liveResponse struct {
	resp      *runtime.Response
	id        string
	sessionID string
	requestID json.RawMessage // the client's requestId as JSON; nil when none

	seq       int      // the next frame's sequence on this socket
	wait      waitInfo // the wait the response is suspended on, once announced
	answered  bool     // the socket has answered the wait
	resolved  bool     // approval.resolved has been sent for the wait
	cancelled bool     // the client sent response.cancel
	failure   string   // a protocol error ended the response: its message
}

type waitInfo struct{ kind, id string }

// rawFrame is one of the runtime's event frames: its JSON, which the
// socket re-frames, and for response.completed the response at that
// boundary (typed by the runtime; nil for other frames).
type rawFrame struct {
	typ  string
	seq  int // the runtime's sequence
	json []byte
	env  *runtime.Envelope
}

// loggedFrame is a frame of the response's log.
func loggedFrame(fr runtime.Frame) rawFrame {
	f := rawFrame{typ: fr.Type, seq: fr.Sequence, json: fr.JSON}
	if fr.Type == runtime.EventCompleted {
		if e, err := fr.Event(); err == nil {
			f.env = e.Envelope
		}
	}
	return f
}

// status is a response.completed frame's status ("" for other frames).
func (f rawFrame) status() string {
	if f.env == nil {
		return ""
	}
	return f.env.Status
}

// held reports frames that wait until their segment is recorded: a wait's
// announcement is sent only once the wait exists in the store (so that an
// answer to it cannot arrive first), and a response's last frame only once
// its session is free again (so that the next response.create succeeds).
func held(typ string) bool {
	switch typ {
	case runtime.EventApproval, runtime.EventClientTool, runtime.EventCompleted, runtime.EventError:
		return true
	}
	return false
}

// stream sends one response's frames: its first segment from the runtime's
// stream, and, after each requires_action boundary, the resumed segments
// from the response's event log (Follow), whichever replica answered the
// wait and wherever the response runs.
func (c *conn) stream(lr *liveResponse) {
	var tail []rawFrame
	for e := range lr.resp.Events() {
		raw, err := e.JSON()
		if err != nil {
			continue
		}
		f := rawFrame{typ: e.Type, seq: e.Sequence, json: raw, env: e.Envelope}
		if held(f.typ) {
			tail = append(tail, f)
			continue
		}
		c.forward(lr, f)
	}
	// The stream closes once the segment is recorded.
	over, after := c.boundary(lr, tail)
	if over {
		return
	}
	tail = nil
	err := c.svc.Follow(c.ctx, c.p, lr.sessionID, lr.id, after, func(fr runtime.Frame) (bool, error) {
		f := loggedFrame(fr)
		if !held(f.typ) {
			c.forward(lr, f)
			return false, nil
		}
		tail = append(tail, f)
		if f.typ != runtime.EventCompleted && f.typ != runtime.EventError {
			return false, nil
		}
		over, _ := c.boundary(lr, tail)
		tail = nil
		return over, nil
	})
	if err == nil || c.ctx.Err() != nil {
		return // over, or the socket is closing (teardown cancels the response)
	}
	// The response can no longer be followed: end it on the socket.
	msg := runtime.AsError(err).Detail
	c.h.log.Warn("live socket cannot follow its response", "responseId", lr.id, "err", err)
	lr.resp.Cancel()
	select {
	case <-lr.resp.Done():
	case <-c.ctx.Done():
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if lr.failure == "" {
		lr.failure = msg
	}
	c.endLocked(lr, rawFrame{typ: runtime.EventError}, "")
}

// forward sends a frame of a segment in progress. After a cancel or a
// protocol error nothing but the response's end is sent.
func (c *conn) forward(lr *liveResponse, f rawFrame) {
	c.awaitRoom()
	c.mu.Lock()
	defer c.mu.Unlock()
	if lr.failure != "" || lr.cancelled {
		return
	}
	if f.typ == runtime.EventApprovalResolved {
		c.resolutionLocked(lr, f) // approval_answer.go
		return
	}
	c.resumedLocked(lr, f.typ, "")
	c.emitLocked(lr, f)
}

// boundary handles the held tail of a recorded segment: a requires_action
// boundary announces its wait (approvals with the requires_action frame,
// client tools without: the socket itself waits for the result); any other
// end finishes the response. It reports whether the response is over and,
// if not, the sequence to follow it from.
func (c *conn) boundary(lr *liveResponse, tail []rawFrame) (over bool, after int) {
	c.awaitRoom()
	c.mu.Lock()
	defer c.mu.Unlock()
	var announce *rawFrame
	for i := range tail {
		f := tail[i]
		switch f.typ {
		case runtime.EventApproval, runtime.EventClientTool:
			announce = &tail[i]
		case runtime.EventCompleted:
			if f.status() == runtime.StatusRequiresAction && f.env.RequiredAction != nil {
				c.suspendLocked(lr, announce, f, *f.env.RequiredAction)
				return false, f.seq
			}
			c.endLocked(lr, f, f.status())
			return true, 0
		case runtime.EventError:
			c.endLocked(lr, f, "")
			return true, 0
		}
	}
	// A segment without an end (not expected): end the response here.
	if lr.failure == "" {
		lr.failure = "Agent execution failed"
	}
	lr.resp.Cancel()
	c.endLocked(lr, rawFrame{typ: runtime.EventError}, "")
	return true, 0
}

// suspendLocked announces a wait and lets the socket answer it.
func (c *conn) suspendLocked(lr *liveResponse, announce *rawFrame, completed rawFrame, a runtime.RequiredAction) {
	if lr.failure != "" || lr.cancelled {
		return // the response is ending: its end follows
	}
	c.resumedLocked(lr, completed.typ, completed.status())
	if announce != nil {
		c.emitLocked(lr, *announce)
	}
	if a.Type != waitClientTool {
		c.emitLocked(lr, completed)
	}
	lr.wait = waitInfo{kind: a.Type, id: a.ID}
	if lr.wait.kind != waitClientTool {
		lr.wait.kind = waitApproval
	}
	lr.answered, lr.resolved = false, false
}

// resumedLocked runs before the first frame after a wait. When an approval
// was answered elsewhere (POST /approvals/{id}, another socket) the socket
// still acknowledges it with approval.resolved before the resumed output.
func (c *conn) resumedLocked(lr *liveResponse, typ, status string) {
	if lr.wait.kind == "" {
		return
	}
	resumed := typ != runtime.EventError && (typ != runtime.EventCompleted ||
		status == runtime.StatusCompleted || status == runtime.StatusRequiresAction)
	if lr.wait.kind == waitApproval && !lr.resolved && resumed {
		c.sendLocked(resolvedFrame(lr.seq, lr.id, lr.sessionID, lr.wait.id, runtime.Approve, lr.requestID))
		lr.seq++
	}
	lr.wait, lr.answered, lr.resolved = waitInfo{}, false, false
}

// endLocked sends the response's last frame and makes the socket idle. A
// response ended by a protocol error ends with an error frame naming it
// (unless it completed first: then the completion, and the error after it).
func (c *conn) endLocked(lr *liveResponse, last rawFrame, status string) {
	if c.active == lr {
		c.active = nil
	}
	if c.goingAway {
		defer c.closeWithLocked(websocket.CloseGoingAway, msgShuttingDown)
	}
	if lr.failure == "" {
		c.resumedLocked(lr, last.typ, status)
		c.emitLocked(lr, last)
		return
	}
	if last.typ == runtime.EventCompleted && status == runtime.StatusCompleted {
		c.emitLocked(lr, last)
		c.sendLocked(idleError(lr.failure))
		return
	}
	c.sendLocked(responseError(lr.seq, lr.id, lr.sessionID, lr.requestID, lr.failure))
	lr.seq++
}

// emitLocked sends one runtime frame with the socket's sequence and the
// client's requestId.
func (c *conn) emitLocked(lr *liveResponse, f rawFrame) {
	always := f.typ == runtime.EventCreated || f.typ == runtime.EventError
	c.sendLocked(reframe(f.json, lr.seq, lr.requestID, always))
	lr.seq++
}
