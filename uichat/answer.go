package uichat

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
)

// answer takes the client's answer to what the chat's response waits for,
// from the newest assistant message (a tool part with its output, or a
// tool part whose approval was responded to), on whichever replica runs
// it, and streams the rest of the response's segment.
func (d *door) answer(w http.ResponseWriter, r *http.Request, p runtime.Principal, c chatRequest, m *uiMessage) {
	st, err := d.svc.SessionStatus(r.Context(), p, c.ID)
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	if st.WaitingOn == nil {
		httpapi.Fail(w, http.StatusConflict, "nothing_to_answer",
			"The chat's response waits for no tool output or approval: send a user message to start a turn")
		return
	}
	part, ok := answerFor(m, *st.WaitingOn)
	if !ok {
		httpapi.Fail(w, http.StatusBadRequest, "invalid_request", "The newest assistant message does not answer what the chat waits for: the "+
			st.WaitingOn.Kind+" "+st.WaitingOn.ID+" (a tool part with that toolCallId and its output, or with that approval responded to)")
		return
	}
	var res runtime.Resumption
	if st.WaitingOn.Kind == "client_tool" {
		res, err = d.svc.AnswerClientTool(r.Context(), p, st.WaitingOn.ID, toolOutput(part))
	} else {
		answer := runtime.AnswerOf(*part.Approval.Approved)
		if !*part.Approval.Approved && part.Approval.Reason != "" {
			answer.Message = part.Approval.Reason // a denial's message (runtime/approval_answer.go)
		}
		res, err = d.svc.AnswerApprovalWith(r.Context(), p, st.WaitingOn.ID, answer)
	}
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	d.streamFollow(w, r, p, res, m, part.ToolCallID)
}

// toolOutput is what a client tool said: its output, or {"error": ...}.
func toolOutput(p uiPart) json.RawMessage {
	if p.State == "output-error" {
		b, _ := json.Marshal(map[string]string{"error": p.ErrorText})
		return b
	}
	if len(p.Output) == 0 {
		return json.RawMessage("null")
	}
	return p.Output
}

// streamFollow writes the segment after an answer (from the log, then
// live, on any replica) into the message the client already has.
func (d *door) streamFollow(w http.ResponseWriter, r *http.Request, p runtime.Principal, res runtime.Resumption, m *uiMessage, answered string) {
	sw := d.openStream(w, res.SessionID)
	defer sw.Close()
	out := &batch{sw: sw}
	enc := newEncoder(res.ResponseID, out.add)
	enc.answered = answered
	for _, part := range m.Parts {
		if part.isTool() && part.ToolCallID != "" {
			enc.tools[part.ToolCallID] = true
		}
	}
	d.follow(r, p, out, enc, res.SessionID, res.ResponseID, res.After)
}

// follow writes the response's events after `after` until the encoder's
// boundary, then the end of the stream (unless the client went away).
func (d *door) follow(r *http.Request, p runtime.Principal, out *batch, enc *encoder, sessionID, responseID string, after int) {
	_ = enc.start()
	if out.send(true) != nil {
		return
	}
	err := d.svc.Follow(r.Context(), p, sessionID, responseID, after, func(fr runtime.Frame) (bool, error) {
		e, _ := fr.Event() // typed by the runtime
		env := e.Body()
		done, err := enc.event(e, env)
		if err == nil {
			err = out.send(true)
		}
		return done, err
	})
	if r.Context().Err() != nil {
		return
	}
	if err != nil && enc.status == "" {
		e := runtime.AsError(err)
		enc.errorText = e.Detail
	}
	d.end(out, enc, sessionID)
}

// waitState reads what became of a wait: its status ("pending" while the
// client must still answer it). A wait that cannot be read counts as
// answered: the replay goes on and ends with the response.
func (d *door) waitState(ctx context.Context, p runtime.Principal, sessionID, waitID string) string {
	status, found, err := d.svc.WaitStatus(ctx, p, sessionID, waitID)
	if err != nil || !found {
		return ""
	}
	return status
}
