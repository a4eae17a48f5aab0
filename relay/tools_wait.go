package relay

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harnest/harnest/store"
)

// awaitToolCall waits, for at most approvalWait, until a call that is not
// final has its outcome: the owner's decision on an approval (after which
// this request runs the approved call, unless another one claimed it) or
// the end of a run going on elsewhere. It returns the call as it is then;
// one still waiting is answered 202 and the agent repeats the call_id.
// Every decision and outcome is appended to the owner's feed, which wakes
// the wait on any replica; a slow tick covers a lost wake-up.
func (r *Relay) awaitToolCall(ctx context.Context, p store.RelayParticipant, c store.RelayToolCall, args json.RawMessage) (store.RelayToolCall, error) {
	wake, stop, err := r.st.ListenRelayFeed(ctx, p.Owner)
	if err != nil {
		return c, err
	}
	defer stop()
	timer := time.NewTimer(approvalWait)
	defer timer.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		cur, found, err := r.home.st.GetRelayToolCall(ctx, p.Owner, p.ID, c.Run, c.CallID)
		if err != nil {
			return c, err
		}
		if !found || cur.Final() {
			return cur, nil
		}
		if cur.Status == store.RelayCallApproved {
			claimed, err := r.home.st.ClaimRelayToolCall(ctx, p.Owner, p.ID, c.Run, c.CallID)
			if err != nil {
				return cur, err
			}
			if claimed {
				cur.Status = store.RelayCallRunning
				return r.runToolCall(ctx, p, cur, args), nil
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

// noteToolCall appends a call's state to the owner's feed (type
// "tool_call"): a call waiting for approval, a decision, an outcome.
func (r *Relay) noteToolCall(ctx context.Context, p store.RelayParticipant, c store.RelayToolCall) {
	if c.Status == store.RelayCallRunning {
		return // its outcome follows
	}
	item, _ := json.Marshal(toolFeedItem{Tool: c.Tool, CallID: c.CallID, Status: c.Status, Code: c.Code, ApprovalID: c.ApprovalID})
	entry := store.RelayFeedEntry{Participant: p.ID, Name: p.Name, Kind: p.Kind, Type: "tool_call", Item: item, At: stamp(r.now())}
	if _, err := r.st.AppendRelayFeed(ctx, p.Owner, entry); err != nil {
		r.log.Error("relay: adding a tool call to the owner's feed", "participant", p.ID, "tool", c.Tool, "err", err)
	}
}
