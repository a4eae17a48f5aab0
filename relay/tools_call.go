package relay

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/relay/tools"
	"github.com/harnest/harnest/store"
)

// toolCallRequest is the body of POST tools/call.
type toolCallRequest struct {
	RunNote   string
	Tool      string
	Arguments json.RawMessage
	CallID    string
}

func decodeToolCall(body []byte) (toolCallRequest, *bodyError) {
	const code = "invalid_tool_call"
	obj, err := object(body, code, "run_note", "tool", "arguments", "call_id")
	if err != nil {
		return toolCallRequest{}, err
	}
	var req toolCallRequest
	if req.RunNote, err = str(obj, "run_note", code, true); err != nil {
		return req, err
	}
	if req.Tool, err = checkedStr(obj, "tool", code, shortName, "The tool must be the exact name of a tool the owner granted you."); err != nil {
		return req, err
	}
	if req.CallID, err = checkedStr(obj, "call_id", code, visibleID, "The call_id must be 1 to 128 visible characters, unique within the run."); err != nil {
		return req, err
	}
	req.Arguments = obj["arguments"]
	if len(req.Arguments) == 0 {
		req.Arguments = json.RawMessage("{}")
	}
	if len(req.Arguments) > MaxToolArgsBytes {
		return req, &bodyError{http.StatusRequestEntityTooLarge, "arguments_too_large",
			"The arguments exceed 16 KB; send less at once."}
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(req.Arguments, &args) != nil || args == nil {
		return req, invalid(code, "The arguments must be a JSON object.")
	}
	return req, nil
}

// visibleID accepts 1 to 128 characters without spaces or control
// characters.
func visibleID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// callbackSession resolves the participant of the request's callback
// token, or answers 401. A participant that is paused or gone ends its
// token here too.
func (r *Relay) callbackSession(w http.ResponseWriter, req *http.Request) (store.RelayParticipant, bool) {
	ctx, now := req.Context(), r.now()
	token, ok := auth.BearerToken(req)
	if ok {
		cb, found, err := r.homeSt.RelayCallbackByToken(ctx, hashSecret(token), now)
		if err != nil {
			r.internal(w, err)
			return store.RelayParticipant{}, false
		}
		if found {
			p, live, err := r.st.GetParticipant(ctx, cb.Owner, cb.Participant, now)
			if err != nil {
				r.internal(w, err)
				return store.RelayParticipant{}, false
			}
			if live && p.State == store.RelayActive {
				return p, true
			}
			if err := r.homeSt.EndRelayCallback(ctx, cb.Owner, cb.Participant); err != nil {
				r.internal(w, err)
				return store.RelayParticipant{}, false
			}
		}
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="harnest-relay-tools"`)
	fail(w, http.StatusUnauthorized, "invalid_callback_token",
		"The callback token is invalid or has ended (pausing, disconnecting or pairing again ends it); pair again to get a new one.")
	return store.RelayParticipant{}, false
}

// POST tools/call {run_note, tool, arguments, call_id}: runs one granted
// tool once per call_id and answers with the call's receipt.
func (r *Relay) handleToolCall(w http.ResponseWriter, req *http.Request) {
	if r.home == nil {
		toolsOff(w)
		return
	}
	p, ok := r.callbackSession(w, req)
	if !ok || !r.allow(w, req, p.Owner, "tools", p.ID, ToolCallsPerMinute) {
		return
	}
	call, ok := readDecoded(w, req, decodeToolCall)
	if !ok {
		return
	}
	ctx := req.Context()
	key, err := r.home.NoteKey(ctx)
	if err != nil {
		r.internal(w, err)
		return
	}
	note, err := tools.VerifyRunNote(key, call.RunNote, p.ID, r.now())
	switch {
	case errors.Is(err, tools.ErrNoteExpired):
		fail(w, http.StatusForbidden, "run_note_expired", "The run note has expired (it lasts ten minutes); tools can be called only while the run is young.")
		return
	case err != nil:
		fail(w, http.StatusForbidden, "invalid_run_note", "The run note is not valid for this participant; send the callback.run_note of the inbox item you are working on.")
		return
	}
	grants, err := r.homeSt.RelayGrants(ctx, p.Owner, p.ID)
	if err != nil {
		r.internal(w, err)
		return
	}
	if !slices.Contains(grants, call.Tool) {
		fail(w, http.StatusForbidden, "tool_not_granted", "The owner has not granted you this tool; declaring it as a skill is not a grant. Ask the owner to grant its exact name.")
		return
	}
	tool, found := r.home.ServerTool(call.Tool)
	if !found {
		fail(w, http.StatusNotFound, "tool_unavailable", "The server offers no tool of that name right now (it was removed, or its MCP server is down); try again later.")
		return
	}
	c := store.RelayToolCall{Participant: p.ID, Run: note.Item, CallID: call.CallID, Tool: call.Tool,
		ArgsHash: tools.ArgsHash(call.Arguments), Status: store.RelayCallRunning, StartedAt: r.now()}
	if tool.Approval {
		c.Status, c.ApprovalID = store.RelayCallAwaiting, tools.NewApprovalID()
	}
	got, existing, err := r.homeSt.BeginRelayToolCall(ctx, p.Owner, c, MaxCallsPerRun, tools.CallKeep)
	if r.refuse(w, err, storeRefusal{store.ErrRelayRunSpent, http.StatusTooManyRequests, "run_call_limit", "This run has made its 20 tool calls; no more calls are run for it."}) {
		return
	}
	if existing && (got.Tool != c.Tool || got.ArgsHash != c.ArgsHash) {
		fail(w, http.StatusConflict, "call_id_reused", "This call_id was already used in this run for another call; use a new call_id for a new call.")
		return
	}
	if !existing {
		r.home.Note(ctx, p, got)
		if got.Status == store.RelayCallRunning {
			got = r.home.Run(ctx, p, got, call.Arguments)
		}
	}
	if !got.Final() {
		if got, err = r.home.Await(ctx, p, got, call.Arguments); err != nil {
			if ctx.Err() == nil {
				r.internal(w, err)
			}
			return
		}
	}
	writeToolReceipt(w, got, existing)
}

// toolReceiptJSON is a call's receipt as the participant sees it.
type toolReceiptJSON struct {
	CallID     string          `json:"call_id"`
	Tool       string          `json:"tool"`
	Status     string          `json:"status"`
	Output     json.RawMessage `json:"output,omitempty"`
	IsError    bool            `json:"is_error"`
	Code       string          `json:"code,omitempty"`
	ApprovalID string          `json:"approval_id,omitempty"`
	Repeated   bool            `json:"repeated"`
}

// writeToolReceipt answers 200 with a final receipt, 202 with one still
// waiting (repeat the call_id to wait again).
func writeToolReceipt(w http.ResponseWriter, c store.RelayToolCall, repeated bool) {
	out := toolReceiptJSON{CallID: c.CallID, Tool: c.Tool, Status: c.Status, Output: c.Result,
		IsError: c.Status != store.RelayCallCompleted, Code: c.Code, ApprovalID: c.ApprovalID, Repeated: repeated}
	status := http.StatusOK
	if !c.Final() {
		status, out.IsError = http.StatusAccepted, false
	}
	writeJSON(w, status, out)
}
