package neutral

import (
	"encoding/json"
	"net/http"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// decide answers a human approval: POST /approvals/{id} with
// {"decision": "approve"}, {"decision": "deny", "message"?}, {"decision":
// "edit", "arguments"} or {"decision": "respond", "result"}
// (runtime/approval_answer.go). It returns the response's next boundary
// (completed, or the next requires_action) under the same response ID,
// from whichever replica holds it; a denial that ended the response
// returns {"id", "status":"denied"}. A refused answer (400) changes
// nothing.
func (a *API) decide(w http.ResponseWriter, r *http.Request) {
	obj, ok := a.readObject(w, r)
	if !ok {
		return
	}
	decision, err := runtime.ApprovalAnswerOf(obj)
	if err != nil {
		writeError(w, err)
		return
	}
	answer, err := a.svc.DecideWith(r.Context(), auth.From(r.Context()), r.PathValue("approvalId"), decision)
	writeAnswer(w, answer, err)
}

// submitClientTool hands a client tool's output to the waiting response:
// POST /client-tools/{id} with exactly {"output": <any JSON>}.
func (a *API) submitClientTool(w http.ResponseWriter, r *http.Request) {
	output, ok := a.onlyMember(w, r, "output", "invalid_client_tool_output",
		`Expected client tool output: send exactly {"output": <any JSON>}`)
	if !ok {
		return
	}
	answer, err := a.svc.SubmitClientTool(r.Context(), auth.From(r.Context()), r.PathValue("requestId"), jsonwrite.Compact(output))
	writeAnswer(w, answer, err)
}

// onlyMember reads a body that is exactly {"<name>": <value>} and returns
// the value; any other body is answered 400 with code and detail (false).
func (a *API) onlyMember(w http.ResponseWriter, r *http.Request, name, code, detail string) (json.RawMessage, bool) {
	obj, ok := a.readObject(w, r)
	if !ok {
		return nil, false
	}
	v, has := obj[name]
	if len(obj) != 1 || !has {
		fail(w, http.StatusBadRequest, code, detail)
		return nil, false
	}
	return v, true
}

// writeAnswer writes the next boundary: its envelope, or the error that
// ended it (504 for a timeout, 500 for a failure, 502 for no output).
func writeAnswer(w http.ResponseWriter, answer runtime.Answer, err error) {
	if err == nil && answer.Err != nil { // answer.Err is a *runtime.Error: nil stays nil
		err = answer.Err
	}
	writeReceipt(w, answer.Body, err)
}
