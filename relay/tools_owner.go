package relay

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/relay/tools"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// The owner's side of tools at home: grants, approvals and receipts.

// maxGrants bounds the tools granted to one participant.
const maxGrants = 100

// ownParticipant reads one of owner's live participants, or answers 404.
func (r *Relay) ownParticipant(w http.ResponseWriter, req *http.Request, owner string) (store.RelayParticipant, bool) {
	p, found, err := r.st.GetParticipant(req.Context(), owner, req.PathValue("id"), r.now())
	return p, r.participantFound(w, found, err)
}

// toolsOn answers the owner's tools-at-home routes with 404
// tools_at_home_off while they are off (toolsOff), and serves them with h
// otherwise.
func (r *Relay) toolsOn(h ownerHandler) ownerHandler {
	return func(w http.ResponseWriter, req *http.Request, owner string) {
		if r.home == nil {
			toolsOff(w)
			return
		}
		h(w, req, owner)
	}
}

func writeGrants(w http.ResponseWriter, participant string, tools []string) {
	writeJSON(w, http.StatusOK, map[string]any{"participant_id": participant, "tools": tools})
}

// GET /owner/outside-agents/participants/{id}/grants
func (r *Relay) handleGetGrants(w http.ResponseWriter, req *http.Request, owner string) {
	p, ok := r.ownParticipant(w, req, owner)
	if !ok {
		return
	}
	grants, err := r.homeSt.RelayGrants(req.Context(), owner, p.ID)
	if err != nil {
		r.internal(w, err)
		return
	}
	writeGrants(w, p.ID, grants)
}

// POST /owner/outside-agents/participants/{id}/grants {"tools": [...]}:
// replaces the participant's grants with these exact tool names, each one
// the server offers.
func (r *Relay) handleSetGrants(w http.ResponseWriter, req *http.Request, owner string) {
	p, ok := r.ownParticipant(w, req, owner)
	if !ok {
		return
	}
	const code = "invalid_grants"
	obj, ok := readObject(w, req, code, "tools")
	if !ok {
		return
	}
	var names []string
	if json.Unmarshal(obj["tools"], &names) != nil || len(names) > maxGrants {
		fail(w, http.StatusUnprocessableEntity, code, "tools must be a list of at most 100 exact tool names.")
		return
	}
	for _, n := range names {
		if _, found := r.home.ServerTool(n); !found {
			fail(w, http.StatusUnprocessableEntity, "unknown_tool",
				"The server offers no tool named "+strconv.Quote(n)+"; grant the exact names of spec.tools or of an MCP server's tools (<server>__<tool>).")
			return
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if err := r.homeSt.SetRelayGrants(req.Context(), owner, p.ID, names, p.ExpiresAt.Sub(r.now())); err != nil {
		r.internal(w, err)
		return
	}
	if names == nil {
		names = []string{}
	}
	writeGrants(w, p.ID, names)
}

// DELETE /owner/outside-agents/participants/{id}/grants: revokes them all.
func (r *Relay) handleRevokeGrants(w http.ResponseWriter, req *http.Request, owner string) {
	p, ok := r.ownParticipant(w, req, owner)
	if !ok {
		return
	}
	if err := r.homeSt.SetRelayGrants(req.Context(), owner, p.ID, nil, 0); err != nil {
		r.internal(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// toolCallJSON is a call as the owner's receipts show it: never its
// arguments or result.
type toolCallJSON struct {
	CallID     string `json:"call_id"`
	Tool       string `json:"tool"`
	Status     string `json:"status"`
	Code       string `json:"code,omitempty"`
	ApprovalID string `json:"approval_id,omitempty"`
	RunID      string `json:"relay_id"`
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at,omitempty"`
}

func toolCallOut(c store.RelayToolCall) toolCallJSON {
	out := toolCallJSON{CallID: c.CallID, Tool: c.Tool, Status: c.Status, Code: c.Code, ApprovalID: c.ApprovalID,
		RunID: c.Run, StartedAt: stamp(c.StartedAt)}
	if !c.FinishedAt.IsZero() {
		out.FinishedAt = stamp(c.FinishedAt)
	}
	return out
}

// GET /owner/outside-agents/participants/{id}/tool-calls?limit=20: the
// participant's tool calls, newest first.
func (r *Relay) handleToolReceipts(w http.ResponseWriter, req *http.Request, owner string) {
	limit, ok := queryLimit(w, req, 20)
	if !ok {
		return
	}
	p, ok := r.ownParticipant(w, req, owner)
	if !ok {
		return
	}
	calls, err := r.homeSt.ListRelayToolCalls(req.Context(), owner, p.ID, limit)
	if err != nil {
		r.internal(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"participant_id": p.ID, "calls": views(calls, toolCallOut)})
}

// POST /owner/outside-agents/tool-approvals/{id} {"decision":
// "approve"|"deny"}: answers a call waiting for approval, once.
func (r *Relay) handleToolApproval(w http.ResponseWriter, req *http.Request, owner string) {
	obj, ok := readObject(w, req, "invalid_decision", "decision")
	if !ok {
		return
	}
	decision, berr := str(obj, "decision", "invalid_decision", true)
	if berr != nil {
		failBody(w, berr)
		return
	}
	if decision != "approve" && decision != "deny" {
		fail(w, http.StatusUnprocessableEntity, "invalid_decision", `decision must be "approve" or "deny".`)
		return
	}
	c, err := r.home.Decide(req.Context(), owner, req.PathValue("id"), decision == "approve")
	if err != nil {
		httpapi.WriteError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, toolCallOut(c))
}

// ApprovalDesk is the relay's tool call approvals as the runtime answers
// them: POST /approvals/{id} decides a tool call approval as
// POST /owner/outside-agents/tool-approvals/{id} does.
func (r *Relay) ApprovalDesk() runtime.ApprovalDesk { return (*toolApprovals)(r) }

type toolApprovals Relay

func (d *toolApprovals) Owns(id string) bool { return tools.IsApprovalID(id) }

func (d *toolApprovals) Decide(ctx context.Context, p runtime.Principal, id string, approve bool) ([]byte, error) {
	r := (*Relay)(d)
	if r.home == nil || !r.IsOwner(p.UserID) {
		return nil, runtime.Errorf(runtime.ErrNotFound, "approval_not_found", "No approval with that ID is waiting for you.")
	}
	c, err := r.home.Decide(ctx, p.UserID, id, approve)
	if err != nil {
		return nil, err
	}
	return json.Marshal(toolCallOut(c))
}
