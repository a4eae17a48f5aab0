package live

import (
	"encoding/json"

	"github.com/harnest/harnest/internal/contract"
	"github.com/harnest/harnest/runtime"
)

// Approval answers on the socket. approval.decision takes every answer of
// POST /approvals/{id} (runtime/approval_answer.go):
//
//	{"type":"approval.decision","responseId":…,"approvalId":…,"decision":"approve"}
//	… "decision":"deny","message"?:"why"
//	… "decision":"edit","arguments":{…}
//	… "decision":"respond","result":<any JSON>
//
// and approval.resolved, the socket's acknowledgement, says the decision
// with the members it came with. The runtime's own approval.resolved event
// (a richer answer, given on this socket or anywhere else) is not sent as
// a second frame: it is the acknowledgement when the socket has not sent
// one, and is dropped when it has. A refused answer is an error frame with
// the refusal's code (and violations); the approval still waits.

// decisionAnswer reads the answer members of an approval.decision frame.
func decisionAnswer(obj map[string]json.RawMessage) (runtime.ApprovalAnswer, error) {
	fields := make(map[string]json.RawMessage, 4)
	for _, k := range []string{"decision", "message", "arguments", "result"} {
		if v, ok := obj[k]; ok {
			fields[k] = v
		}
	}
	return runtime.ApprovalAnswerOf(fields)
}

// resolvedFrame acknowledges a decision before any resumed output.
func resolvedFrame(seq int, responseID, sessionID, approvalID string, a runtime.ApprovalAnswer, requestID json.RawMessage) []byte {
	return mustJSON(struct {
		Type       string          `json:"type"`
		Sequence   int             `json:"sequence"`
		ResponseID string          `json:"responseId"`
		SessionID  string          `json:"sessionId"`
		ApprovalID string          `json:"approvalId"`
		Decision   string          `json:"decision"`
		Message    string          `json:"message,omitempty"`
		Arguments  json.RawMessage `json:"arguments,omitempty"`
		Result     json.RawMessage `json:"result,omitempty"`
		RequestID  json.RawMessage `json:"requestId,omitempty"`
	}{frameResolved, seq, responseID, sessionID, approvalID, a.Decision, a.Message, a.Arguments, a.Result, requestID})
}

// refusedAnswer is the error frame of an answer the approval does not
// take.
func refusedAnswer(e *runtime.Error) []byte {
	return mustJSON(struct {
		Type       string               `json:"type"`
		Error      string               `json:"error"`
		Code       string               `json:"code"`
		Violations []contract.Violation `json:"violations,omitempty"`
	}{runtime.EventError, e.Detail, e.Code, e.Violations})
}

// resolutionLocked takes the runtime's approval.resolved event: the
// acknowledgement of an answer given elsewhere, unless the socket sent
// one.
func (c *conn) resolutionLocked(lr *liveResponse, f rawFrame) {
	if lr.wait.kind != waitApproval || lr.resolved {
		return
	}
	e, err := runtime.DecodeEvent(f.json)
	if err != nil || e.Resolution == nil || e.Resolution.ID != lr.wait.id {
		return
	}
	r := e.Resolution
	a := runtime.ApprovalAnswer{Decision: r.Decision, Message: r.Message, Arguments: r.Arguments, Result: r.Result}
	c.sendLocked(resolvedFrame(lr.seq, lr.id, lr.sessionID, r.ID, a, lr.requestID))
	lr.seq++
	lr.resolved = true
}
