package uichat

import (
	"github.com/harnest/harnest/runtime"
)

// boundary handles response.completed: the final receipt ends the stream;
// requires_action ends it when the client must answer (live, or a replay
// whose wait is still pending) and is passed over when a replay meets a
// wait that was answered since (the rest of the response follows).
func (e *encoder) boundary(env *runtime.EnvelopeBody) (bool, error) {
	if err := e.closeParts(); err != nil {
		return false, err
	}
	if env == nil {
		env = &runtime.EnvelopeBody{Status: runtime.StatusCompleted}
	}
	if env.Usage != nil {
		u := *env.Usage
		e.usage = &u
	}
	if env.Status != runtime.StatusRequiresAction {
		e.status = env.Status
		if env.Status == runtime.StatusFailed {
			code := runtime.CodeInvocationFailed
			if env.Error != nil && env.Error.Code != "" {
				code = env.Error.Code
			}
			e.errorText = "The response failed: " + code
		}
		return true, nil
	}
	if e.replay == nil {
		e.status = env.Status
		return true, nil
	}
	r := e.replay
	waitID := r.waitID
	if waitID == "" && env.RequiredAction != nil {
		waitID = env.RequiredAction.ID
	}
	state := r.state(waitID)
	if state == "pending" {
		e.status = env.Status
		_, err := e.flushHeld(false, false)
		return true, err
	}
	_, err := e.flushHeld(true, state == "approved")
	return false, err
}

// holdWait writes a wait's chunks, or in a replay holds them until the
// boundary says whether the wait is still pending.
func (e *encoder) holdWait(waitID, callID string, client bool, write func() error) error {
	if !client {
		e.approvalCall = callID
	}
	if e.replay == nil {
		return write()
	}
	r := e.replay
	r.waitID, r.callID, r.client, r.held = waitID, callID, client, r.held[:0]
	out := e.write
	e.write = func(b []byte) error {
		r.held = append(append(r.held, b...), '\n')
		return nil
	}
	err := write()
	e.write = out
	return err
}

// flushHeld writes the held wait's chunks. An answered client tool is
// shown as done (its output is not in the log); an answered approval as
// responded (approved or not).
func (e *encoder) flushHeld(answered, approved bool) (bool, error) {
	r := e.replay
	if r.waitID == "" {
		return false, nil
	}
	defer func() { r.waitID, r.held = "", r.held[:0] }()
	if answered && r.client {
		delete(e.tools, r.callID)
		if err := e.toolInput(r.callID, "client_tool", nil, true); err != nil {
			return false, err
		}
		return false, e.chunk("tool-output-available", "toolCallId", r.callID, "output", nil, "dynamic", true, "providerExecuted", true)
	}
	for _, line := range splitLines(r.held) {
		if err := e.write(line); err != nil {
			return false, err
		}
	}
	if answered {
		return false, e.chunk("tool-approval-response", "approvalId", r.waitID, "approved", approved)
	}
	return true, nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

// finish ends the message: the error, the end of the step and the finish
// chunk, whose messageMetadata says the harnest response, its status and
// usage. A stream that ended without a boundary (the response was lost
// to a failure the log does not show) ends as an error.
func (e *encoder) finish(sessionID string) error {
	if err := e.closeParts(); err != nil {
		return err
	}
	if e.status == "" {
		e.status = runtime.StatusFailed
		if e.errorText == "" {
			e.errorText = "The response ended without a result"
		}
	}
	if e.errorText != "" {
		if err := e.chunk("error", "errorText", e.errorText); err != nil {
			return err
		}
	}
	if e.status == runtime.StatusDenied {
		if call := firstOf(e.answered, e.approvalCall); call != "" {
			if err := e.chunk("tool-output-denied", "toolCallId", call); err != nil {
				return err
			}
		}
	}
	if e.status == runtime.StatusCancelled {
		if err := e.chunk("abort", "reason", "cancelled"); err != nil {
			return err
		}
	}
	if err := e.chunk("finish-step"); err != nil {
		return err
	}
	meta := finishMetadata{ResponseID: e.messageID, SessionID: sessionID, Status: e.status, Usage: e.usage}
	if reason := finishReason(e.status); reason != "" {
		return e.chunk("finish", "finishReason", reason, "messageMetadata", meta)
	}
	return e.chunk("finish", "messageMetadata", meta)
}

// finishMetadata is the messageMetadata of the finish chunk.
type finishMetadata struct {
	ResponseID string         `json:"responseId"`
	SessionID  string         `json:"sessionId"`
	Status     string         `json:"status"`
	Usage      *runtime.Usage `json:"usage,omitempty"`
}

// finishReason is the AI SDK's finish reason of a harnest status; a
// cancelled response has none (its stream says abort).
func finishReason(status string) string {
	switch status {
	case runtime.StatusCompleted, runtime.StatusDenied:
		return "stop"
	case runtime.StatusRequiresAction:
		return "tool-calls"
	case runtime.StatusFailed:
		return "error"
	}
	return ""
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
