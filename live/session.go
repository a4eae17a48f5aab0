package live

import (
	"encoding/json"
	"errors"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/runtime"
)

// connect reads the first frame, which must be connect: it joins the named
// session (one of the user's) or starts a new one. False when the socket is
// closing.
func (c *conn) connect() bool {
	data, ok := c.read()
	if !ok {
		return false
	}
	f, ferr := decodeFrame(data)
	if ferr != nil || f.Type != frameConnect {
		c.send(idleError(msgFirstFrame))
		c.closeWith(websocket.ClosePolicyViolation, msgFirstFrame)
		return false
	}
	if f.SessionID != "" {
		_, err := c.svc.GetSession(c.ctx, c.p, f.SessionID)
		if err != nil {
			c.refuse(err)
			return false
		}
		c.sessionID = f.SessionID
	} else {
		s, err := c.svc.CreateSession(c.ctx, c.p, "", nil)
		if err != nil {
			c.refuse(err)
			return false
		}
		c.sessionID = s.ID
	}
	c.send(connectedFrame(c.sessionID))
	return true
}

// refuse ends a connect that failed: 1008 for the client's mistake (a
// session that is not theirs), 1011 when the server could not answer.
func (c *conn) refuse(err error) {
	e := runtime.AsError(err)
	code := websocket.ClosePolicyViolation
	if errors.Is(e, runtime.ErrUnavailable) {
		code = websocket.CloseInternalServerErr
	}
	c.send(idleError(e.Detail))
	c.closeWith(code, e.Detail)
}

// idleFrame handles a frame while no response runs: response.create starts
// one, session.close closes; anything else is answered with an error frame
// and the socket stays open. After MaxIdleFrames frames the socket closes.
func (c *conn) idleFrame(data []byte) {
	c.idleFrames++
	if c.idleFrames > MaxIdleFrames {
		c.closeWith(websocket.ClosePolicyViolation, msgFrameLimit)
		return
	}
	f, ferr := decodeFrame(data)
	switch {
	case ferr == nil && f.Type == frameClose:
		c.closeWith(websocket.CloseNormalClosure, "")
	case f.Type == frameCreate && ferr != nil:
		c.send(idleError(ferr.Msg))
	case f.Type == frameCreate:
		c.start(f)
	default:
		c.send(idleError(msgInvalidInput))
	}
}

// msgUntypedObject refuses an object input sent to an untyped agent.
const msgUntypedObject = "input must be a non-blank string or an array of content parts; an object is for agents with an input schema (spec.inputSchema)"

// start begins a response on the socket's session and streams it.
func (c *conn) start(f frame) {
	if f.Object && c.svc.Contract().InputSchema() == nil {
		c.send(idleError(msgUntypedObject))
		return
	}
	resp, err := c.svc.StartResponse(c.ctx, c.p, runtime.ResponseRequest{
		Input: f.Input, Parts: f.Parts, SessionID: c.sessionID, Metadata: f.Metadata, Stream: true,
		Transport: runtime.TransportLive, OnBusy: f.OnBusy,
	})
	if err != nil {
		c.send(idleError(runtime.AsError(err).Detail))
		return
	}
	lr := &liveResponse{resp: resp, id: resp.ID, sessionID: resp.SessionID}
	if f.RequestID != nil {
		lr.requestID = mustJSON(*f.RequestID)
	}
	c.mu.Lock()
	c.active = lr
	if c.closing { // dropped meanwhile (a slow client): nobody reads this response
		resp.Cancel()
	}
	c.mu.Unlock()
	c.helpers.Add(1)
	go func() {
		defer c.helpers.Done()
		c.stream(lr)
	}()
}

// activeFrame handles a frame while a response runs. Accepted:
// response.cancel for it, session.close, and the answer to the wait it is
// suspended on (approval.decision or client_tool.result). Anything else is
// a protocol error, which ends the response.
func (c *conn) activeFrame(lr *liveResponse, data []byte) {
	f, ferr := decodeFrame(data)
	switch {
	case f.Type == frameClose && ferr == nil:
		c.mu.Lock()
		lr.resp.Cancel()
		c.closeWithLocked(websocket.CloseNormalClosure, "")
		c.mu.Unlock()
		return
	case f.Type == frameCancel:
		if ferr != nil || f.ResponseID != lr.id {
			c.protocolError(lr, msgInvalidCancel)
			return
		}
		c.mu.Lock()
		lr.cancelled = true
		c.mu.Unlock()
		lr.resp.Cancel()
		c.h.log.Info("live response cancelled by its client", "responseId", lr.id)
		return
	case f.Type == frameSteer: // steer.go
		if ferr != nil || f.ResponseID != lr.id {
			c.send(idleError(msgInvalidSteer))
			return
		}
		c.steer(lr, f)
		return
	}
	c.mu.Lock()
	wait, answered := lr.wait, lr.answered
	c.mu.Unlock()
	switch {
	case wait.kind == "":
		c.protocolError(lr, msgOnlyCancel)
	case wait.kind == waitApproval && answered:
		c.protocolError(lr, msgDecided)
	case wait.kind == waitApproval:
		if ferr != nil || f.Type != frameDecision || f.ResponseID != lr.id || f.ApprovalID != wait.id {
			c.protocolError(lr, msgInvalidDecide)
			return
		}
		c.decide(lr, wait.id, f.Answer)
	case answered:
		c.protocolError(lr, msgToolSubmitted)
	default:
		if ferr != nil || f.Type != frameToolResult || f.ToolRequestID != wait.id {
			c.protocolError(lr, msgInvalidResult)
			return
		}
		c.submitTool(lr, wait.id, f.Output)
	}
}

// decide records a decision (on any replica's behalf: the response resumes
// wherever it runs) and acknowledges it with approval.resolved. The lock is
// held throughout, so no resumed frame can overtake the acknowledgement. An
// answer the approval does not take (an edit that breaks the action's
// schema, a decision it does not offer) is refused with an error frame and
// changes nothing: the approval waits for another decision.
func (c *conn) decide(lr *liveResponse, approvalID string, answer runtime.ApprovalAnswer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	lr.answered = true
	if _, err := c.svc.AnswerApprovalWith(c.ctx, c.p, approvalID, answer); err != nil {
		if e := runtime.AsError(err); errors.Is(e, runtime.ErrInvalid) {
			lr.answered = false
			c.sendLocked(refusedAnswer(e))
			return
		}
		c.protocolErrorLocked(lr, runtime.AsError(err).Detail)
		return
	}
	c.sendLocked(resolvedFrame(lr.seq, lr.id, lr.sessionID, approvalID, answer, lr.requestID))
	lr.seq++
	lr.resolved = true
}

// submitTool hands a client tool's output to the waiting response; the
// resumed frames follow on the socket.
func (c *conn) submitTool(lr *liveResponse, requestID string, output json.RawMessage) {
	c.mu.Lock()
	lr.answered = true
	c.mu.Unlock()
	if _, err := c.svc.AnswerClientTool(c.ctx, c.p, requestID, output); err != nil {
		c.protocolError(lr, runtime.AsError(err).Detail)
	}
}

// protocolError ends the active response because of a frame it cannot
// take: the response fails (receipt failed, code protocol_error), and its
// last frame on the socket is an error frame with msg.
func (c *conn) protocolError(lr *liveResponse, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.protocolErrorLocked(lr, msg)
}

func (c *conn) protocolErrorLocked(lr *liveResponse, msg string) {
	if c.active != lr {
		// The response ended while the frame was on its way: the frame
		// was meant for it, so it is answered as an idle error.
		c.sendLocked(idleError(msg))
		return
	}
	if lr.failure == "" {
		lr.failure = msg
	}
	lr.resp.Abort("protocol_error", msg)
}
