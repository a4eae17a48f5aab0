package memstore

import (
	"context"
	"sync"
	"time"
)

// mcpSessionsSpace is the in-process store's live MCP sessions: when each
// expires, by user and ID. An expired session is dropped when it is next
// looked at, and every put drops all expired ones once the map has doubled
// since the last such sweep.
type mcpSessionsSpace struct {
	now    func() time.Time
	closed *closedFlag // the store's: set by Close

	mu       sync.Mutex
	until    map[mcpSessionKey]time.Time
	sweptLen int // the map's size after the last sweep
}

type mcpSessionKey struct{ user, id string }

func newMCPSessionsSpace(now func() time.Time, closed *closedFlag) *mcpSessionsSpace {
	return &mcpSessionsSpace{now: now, closed: closed, until: map[mcpSessionKey]time.Time{}}
}

// PutMCPSession makes the user's session live until idle from now.
func (p *mcpSessionsSpace) PutMCPSession(ctx context.Context, user, id string, idle time.Duration) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.until) >= 2*p.sweptLen+64 {
		for k, t := range p.until {
			if !t.After(now) {
				delete(p.until, k)
			}
		}
		p.sweptLen = len(p.until)
	}
	p.until[mcpSessionKey{user, id}] = now.Add(idle)
	return nil
}

// TouchMCPSession extends a live session.
func (p *mcpSessionsSpace) TouchMCPSession(ctx context.Context, user, id string, idle time.Duration) (bool, error) {
	if err := p.closed.check(); err != nil {
		return false, err
	}
	now := p.now()
	key := mcpSessionKey{user, id}
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.until[key]
	if !ok || !t.After(now) {
		delete(p.until, key)
		return false, nil
	}
	p.until[key] = now.Add(idle)
	return true, nil
}

// DeleteMCPSession ends a session.
func (p *mcpSessionsSpace) DeleteMCPSession(ctx context.Context, user, id string) (bool, error) {
	if err := p.closed.check(); err != nil {
		return false, err
	}
	now := p.now()
	key := mcpSessionKey{user, id}
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.until[key]
	delete(p.until, key)
	return ok && t.After(now), nil
}

// close drops every session.
func (p *mcpSessionsSpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.until = map[mcpSessionKey]time.Time{}
}
