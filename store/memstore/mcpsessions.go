package memstore

import (
	"context"
	"time"
)

// mcpSessionsSpace is the in-process store's live MCP sessions: when each
// expires, by user and ID (a deadlineSet: an expired session reads as
// gone).
type mcpSessionsSpace struct {
	now      func() time.Time
	closed   *closedFlag // the store's: set by Close
	sessions *deadlineSet[mcpSessionKey]
}

type mcpSessionKey struct{ user, id string }

func newMCPSessionsSpace(now func() time.Time, closed *closedFlag) *mcpSessionsSpace {
	return &mcpSessionsSpace{now: now, closed: closed, sessions: newDeadlineSet[mcpSessionKey](32)}
}

// PutMCPSession makes the user's session live until idle from now.
func (p *mcpSessionsSpace) PutMCPSession(ctx context.Context, user, id string, idle time.Duration) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	now := p.now()
	p.sessions.put(mcpSessionKey{user, id}, now.Add(idle), now)
	return nil
}

// TouchMCPSession extends a live session.
func (p *mcpSessionsSpace) TouchMCPSession(ctx context.Context, user, id string, idle time.Duration) (bool, error) {
	if err := p.closed.check(); err != nil {
		return false, err
	}
	now := p.now()
	return p.sessions.extend(mcpSessionKey{user, id}, now.Add(idle), now), nil
}

// DeleteMCPSession ends a session.
func (p *mcpSessionsSpace) DeleteMCPSession(ctx context.Context, user, id string) (bool, error) {
	if err := p.closed.check(); err != nil {
		return false, err
	}
	return p.sessions.remove(mcpSessionKey{user, id}, p.now()), nil
}

// close drops every session.
func (p *mcpSessionsSpace) close() {
	p.sessions.clear()
}
