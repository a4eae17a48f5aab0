package tools

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/harnest/harnest/relay/text"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// ArgsHash is how the store tells a repeated call from another one.
func ArgsHash(args json.RawMessage) string {
	sum := sha256.Sum256(args)
	return hex.EncodeToString(sum[:])
}

// approvalPrefix starts every tool call approval ID, which tells them
// from the runtime's approvals (IsApprovalID).
const approvalPrefix = "tool_approval_"

// IsApprovalID reports whether id names a tool call approval.
func IsApprovalID(id string) bool { return strings.HasPrefix(id, approvalPrefix) }

// NewApprovalID names the owner's approval of one call.
func NewApprovalID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return approvalPrefix + hex.EncodeToString(b[:])
}

// Run runs a call this request began (or claimed) and records its
// outcome. The run does not depend on the request: an agent that went
// away finds the receipt when it repeats the call_id.
func (h *Home) Run(ctx context.Context, p store.RelayParticipant, c store.RelayToolCall, args json.RawMessage) store.RelayToolCall {
	runCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runLimit)
	defer cancel()
	res, err := h.set.Call(runCtx, c.Tool, args)
	c.Status, c.Code, c.Result = store.RelayCallCompleted, "", res.Output
	switch {
	case err != nil:
		c.Status, c.Code = store.RelayCallFailed, "tool_timeout"
		c.Result, _ = json.Marshal("the tool did not finish in time and was stopped")
	case res.IsError:
		c.Status, c.Code = store.RelayCallFailed, "tool_error"
	}
	c.FinishedAt = h.now()
	if err := h.st.FinishRelayToolCall(runCtx, p.Owner, c); err != nil {
		h.log.Error("relay: recording a tool call's outcome", "participant", p.ID, "tool", c.Tool, "err", err)
	}
	h.Note(runCtx, p, c)
	return c
}

// Await waits, for at most approvalWait, until a call that is not
// final has its outcome: the owner's decision on an approval (after which
// this request runs the approved call, unless another one claimed it) or
// the end of a run going on elsewhere. It returns the call as it is then;
// one still waiting is answered 202 and the agent repeats the call_id.
// Every decision and outcome is appended to the owner's feed, which wakes
// the wait on any replica; a slow tick covers a lost wake-up.
func (h *Home) Await(ctx context.Context, p store.RelayParticipant, c store.RelayToolCall, args json.RawMessage) (store.RelayToolCall, error) {
	wake, stop, err := h.st.ListenRelayFeed(ctx, p.Owner)
	if err != nil {
		return c, err
	}
	defer stop()
	timer := time.NewTimer(approvalWait)
	defer timer.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		cur, found, err := h.st.GetRelayToolCall(ctx, p.Owner, p.ID, c.Run, c.CallID)
		if err != nil {
			return c, err
		}
		if !found || cur.Final() {
			return cur, nil
		}
		if cur.Status == store.RelayCallApproved {
			claimed, err := h.st.ClaimRelayToolCall(ctx, p.Owner, p.ID, c.Run, c.CallID)
			if err != nil {
				return cur, err
			}
			if claimed {
				cur.Status = store.RelayCallRunning
				return h.Run(ctx, p, cur, args), nil
			}
			continue // another request runs it: read again
		}
		select {
		case <-ctx.Done():
			return cur, ctx.Err()
		case <-timer.C:
			return cur, nil
		case <-wake:
		case <-tick.C:
		}
	}
}

// toolFeedItem is a tool call as the owner's feed shows it: its name,
// call ID and outcome, never its arguments or result.
type toolFeedItem struct {
	Tool       string `json:"tool"`
	CallID     string `json:"call_id"`
	Status     string `json:"status"`
	Code       string `json:"code,omitempty"`
	ApprovalID string `json:"approval_id,omitempty"`
}

// Note appends a call's state to the owner's feed (type
// "tool_call"): a call waiting for approval, a decision, an outcome.
func (h *Home) Note(ctx context.Context, p store.RelayParticipant, c store.RelayToolCall) {
	if c.Status == store.RelayCallRunning {
		return // its outcome follows
	}
	item, _ := json.Marshal(toolFeedItem{Tool: c.Tool, CallID: c.CallID, Status: c.Status, Code: c.Code, ApprovalID: c.ApprovalID})
	entry := store.RelayFeedEntry{Participant: p.ID, Name: p.Name, Kind: p.Kind, Type: "tool_call", Item: item, At: text.Stamp(h.now())}
	if _, err := h.st.AppendRelayFeed(ctx, p.Owner, entry); err != nil {
		h.log.Error("relay: adding a tool call to the owner's feed", "participant", p.ID, "tool", c.Tool, "err", err)
	}
}

// Decide records the owner's decision on a call waiting for
// approval, once, and tells the feed (which also wakes the agent's request
// waiting for it). Errors are *runtime.Error.
func (h *Home) Decide(ctx context.Context, owner, approvalID string, approve bool) (store.RelayToolCall, error) {
	c, err := h.st.DecideRelayToolCall(ctx, owner, approvalID, approve, h.now())
	switch {
	case errors.Is(err, store.ErrRelayApprovalUnknown):
		return c, runtime.Errorf(runtime.ErrNotFound, "approval_not_found", "You have no tool call approval with that ID; the feed's tool_call items name them.")
	case errors.Is(err, store.ErrRelayApprovalDecided):
		return c, runtime.Errorf(runtime.ErrConflict, "already_resolved", "This tool call was already %s.", c.Status)
	case err != nil:
		h.log.Error("relay: recording a tool call decision", "err", err)
		return c, runtime.Errorf(runtime.ErrUnavailable, runtime.CodeStoreUnavailable, "The store is unavailable; try again.")
	}
	p, _, err := h.st.GetParticipant(ctx, owner, c.Participant, h.now())
	if err != nil || p.ID == "" {
		p = store.RelayParticipant{ID: c.Participant}
	}
	h.Note(ctx, p, c)
	return c, nil
}
