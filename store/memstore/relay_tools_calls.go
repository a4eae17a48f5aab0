package memstore

import (
	"context"
	"time"

	"github.com/harnest/harnest/store"
)

// The tool calls of tools at home (store.RelayTools); see relay_tools.go
// for the data.

// BeginRelayToolCall records a new call of a run, or returns the one with
// its call ID.
func (p *relayToolsSpace) BeginRelayToolCall(_ context.Context, owner string, c store.RelayToolCall, maxCalls int, keep time.Duration) (store.RelayToolCall, bool, error) {
	if err := p.closed.check(); err != nil {
		return store.RelayToolCall{}, false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ck := relayCallKey{owner, c.Participant, c.Run, c.CallID}
	if old := p.calls[ck]; old != nil && p.now().Before(old.dropAt) {
		return copyCall(old.RelayToolCall), true, nil
	}
	rk := relayRunKey{owner, c.Participant, c.Run}
	run := p.runs[rk]
	if run == nil || !p.now().Before(run.dropAt) {
		run = &relayRunCount{}
		p.runs[rk] = run
	}
	if run.n >= maxCalls {
		return store.RelayToolCall{}, false, store.ErrRelayRunSpent
	}
	drop := p.now().Add(keep)
	run.n++
	run.dropAt = drop
	c.StartedAt = relayMS(c.StartedAt)
	c.Result = nil
	p.calls[ck] = &relayToolCall{RelayToolCall: c, dropAt: drop}
	if c.ApprovalID != "" {
		p.approvals[relayApprovalKey{owner, c.ApprovalID}] = ck
	}
	pk := relayPartKey{owner, c.Participant}
	list := append(p.lists[pk], ck)
	if len(list) > store.RelayToolCallsMax {
		list = list[len(list)-store.RelayToolCallsMax:]
	}
	p.lists[pk] = list
	return copyCall(c), false, nil
}

// GetRelayToolCall reads one call of a run.
func (p *relayToolsSpace) GetRelayToolCall(_ context.Context, owner, participant, run, callID string) (store.RelayToolCall, bool, error) {
	if err := p.closed.check(); err != nil {
		return store.RelayToolCall{}, false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.calls[relayCallKey{owner, participant, run, callID}]
	if c == nil || !p.now().Before(c.dropAt) {
		return store.RelayToolCall{}, false, nil
	}
	return copyCall(c.RelayToolCall), true, nil
}

// DecideRelayToolCall answers the approval of a waiting call once.
func (p *relayToolsSpace) DecideRelayToolCall(_ context.Context, owner, approvalID string, approve bool, now time.Time) (store.RelayToolCall, error) {
	if err := p.closed.check(); err != nil {
		return store.RelayToolCall{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ck, ok := p.approvals[relayApprovalKey{owner, approvalID}]
	c := p.calls[ck]
	if !ok || c == nil || !p.now().Before(c.dropAt) {
		return store.RelayToolCall{}, store.ErrRelayApprovalUnknown
	}
	if c.Status != store.RelayCallAwaiting {
		return copyCall(c.RelayToolCall), store.ErrRelayApprovalDecided
	}
	if approve {
		c.Status = store.RelayCallApproved
	} else {
		c.Status, c.Code, c.FinishedAt = store.RelayCallDenied, "approval_denied", relayMS(now)
	}
	return copyCall(c.RelayToolCall), nil
}

// ClaimRelayToolCall moves an approved call to running, for one caller.
func (p *relayToolsSpace) ClaimRelayToolCall(_ context.Context, owner, participant, run, callID string) (bool, error) {
	if err := p.closed.check(); err != nil {
		return false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.calls[relayCallKey{owner, participant, run, callID}]
	if c == nil || c.Status != store.RelayCallApproved {
		return false, nil
	}
	c.Status = store.RelayCallRunning
	return true, nil
}

// FinishRelayToolCall records a running call's outcome.
func (p *relayToolsSpace) FinishRelayToolCall(_ context.Context, owner string, c store.RelayToolCall) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	cur := p.calls[relayCallKey{owner, c.Participant, c.Run, c.CallID}]
	if cur == nil || cur.Status != store.RelayCallRunning {
		return nil
	}
	cur.Status, cur.Code = c.Status, c.Code
	cur.Result = append([]byte(nil), c.Result...)
	cur.FinishedAt = relayMS(c.FinishedAt)
	return nil
}

// ListRelayToolCalls returns a participant's newest calls first.
func (p *relayToolsSpace) ListRelayToolCalls(_ context.Context, owner, participant string, limit int) ([]store.RelayToolCall, error) {
	if err := p.closed.check(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.lists[relayPartKey{owner, participant}]
	out := []store.RelayToolCall{}
	for i := len(list) - 1; i >= 0 && len(out) < limit; i-- {
		if c := p.calls[list[i]]; c != nil && p.now().Before(c.dropAt) {
			out = append(out, copyCall(c.RelayToolCall))
		}
	}
	return out, nil
}

// copyCall is a call whose Result the caller may keep.
func copyCall(c store.RelayToolCall) store.RelayToolCall {
	if c.Result != nil {
		c.Result = append([]byte(nil), c.Result...)
	}
	return c
}
