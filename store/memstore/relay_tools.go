package memstore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// relayToolsSpace is the in-process store's part for tools at home
// (store.RelayTools): callback tokens, grants and tool calls under one
// lock. As in relaySpace, the caller's clock decides what has expired and
// the store's clock (sweep) drops it.
type relayToolsSpace struct {
	now    func() time.Time
	closed *closedFlag

	mu        sync.Mutex
	callbacks map[string]*relayCallback       // by token hash
	byPart    map[relayPartKey]string         // participant → its token hash
	grants    map[relayPartKey]*relayGrants   // per participant
	calls     map[relayCallKey]*relayToolCall // per call
	runs      map[relayRunKey]*relayRunCount  // calls counted per run
	approvals map[relayApprovalKey]relayCallKey
	lists     map[relayPartKey][]relayCallKey // each participant's calls, oldest first
}

type relayPartKey struct{ owner, participant string }

type relayRunKey struct{ owner, participant, run string }

type relayCallKey struct{ owner, participant, run, callID string }

type relayApprovalKey struct{ owner, id string }

type relayCallback struct {
	store.RelayCallback
	dropAt time.Time
}

type relayGrants struct {
	tools  []string
	dropAt time.Time
}

type relayToolCall struct {
	store.RelayToolCall
	dropAt time.Time
}

type relayRunCount struct {
	n      int
	dropAt time.Time
}

func newRelayToolsSpace(now func() time.Time, closed *closedFlag) *relayToolsSpace {
	return &relayToolsSpace{now: now, closed: closed, callbacks: map[string]*relayCallback{},
		byPart: map[relayPartKey]string{}, grants: map[relayPartKey]*relayGrants{},
		calls: map[relayCallKey]*relayToolCall{}, runs: map[relayRunKey]*relayRunCount{},
		approvals: map[relayApprovalKey]relayCallKey{}, lists: map[relayPartKey][]relayCallKey{}}
}

// PutRelayCallback stores a participant's callback token and ends its
// earlier one.
func (p *relayToolsSpace) PutRelayCallback(_ context.Context, c store.RelayCallback, now time.Time) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	keep := c.ExpiresAt.Sub(now)
	if keep <= 0 {
		return fmt.Errorf("store: the callback token expires at %s, before now (%s)", c.ExpiresAt, now)
	}
	c.ExpiresAt = relayMS(c.ExpiresAt)
	p.mu.Lock()
	defer p.mu.Unlock()
	k := relayPartKey{c.Owner, c.Participant}
	delete(p.callbacks, p.byPart[k])
	p.callbacks[c.TokenHash] = &relayCallback{RelayCallback: c, dropAt: p.now().Add(keep)}
	p.byPart[k] = c.TokenHash
	return nil
}

// RelayCallbackByToken finds a live callback token.
func (p *relayToolsSpace) RelayCallbackByToken(_ context.Context, tokenHash string, now time.Time) (store.RelayCallback, bool, error) {
	if err := p.closed.check(); err != nil {
		return store.RelayCallback{}, false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.callbacks[tokenHash]
	if c == nil || !c.ExpiresAt.After(now) {
		return store.RelayCallback{}, false, nil
	}
	return c.RelayCallback, true, nil
}

// EndRelayCallback ends a participant's callback token.
func (p *relayToolsSpace) EndRelayCallback(_ context.Context, owner, participant string) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := relayPartKey{owner, participant}
	if hash, ok := p.byPart[k]; ok {
		delete(p.callbacks, hash)
		delete(p.byPart, k)
	}
	return nil
}

// SetRelayGrants replaces a participant's grants.
func (p *relayToolsSpace) SetRelayGrants(_ context.Context, owner, participant string, tools []string, keep time.Duration) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	sorted := slices.Clone(tools)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	p.mu.Lock()
	defer p.mu.Unlock()
	k := relayPartKey{owner, participant}
	if len(sorted) == 0 {
		delete(p.grants, k)
		return nil
	}
	p.grants[k] = &relayGrants{tools: sorted, dropAt: p.now().Add(keep)}
	return nil
}

// RelayGrants reads a participant's grants, sorted.
func (p *relayToolsSpace) RelayGrants(_ context.Context, owner, participant string) ([]string, error) {
	if err := p.closed.check(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	g := p.grants[relayPartKey{owner, participant}]
	if g == nil || !p.now().Before(g.dropAt) {
		return []string{}, nil
	}
	return slices.Clone(g.tools), nil
}

// sweep drops what expired before now (the store's clock).
func (p *relayToolsSpace) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for hash, c := range p.callbacks {
		if !now.Before(c.dropAt) {
			delete(p.callbacks, hash)
			delete(p.byPart, relayPartKey{c.Owner, c.Participant})
		}
	}
	relayDropExpired(p.grants, now, func(g *relayGrants) time.Time { return g.dropAt })
	relayDropExpired(p.runs, now, func(r *relayRunCount) time.Time { return r.dropAt })
	relayDropExpired(p.calls, now, func(c *relayToolCall) time.Time { return c.dropAt })
	for k, ck := range p.approvals {
		if p.calls[ck] == nil {
			delete(p.approvals, k)
		}
	}
	for k, list := range p.lists {
		list = slices.DeleteFunc(list, func(ck relayCallKey) bool { return p.calls[ck] == nil })
		if len(list) == 0 {
			delete(p.lists, k)
		} else {
			p.lists[k] = list
		}
	}
}

// close drops everything.
func (p *relayToolsSpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fresh := newRelayToolsSpace(p.now, p.closed)
	p.callbacks, p.byPart, p.grants = fresh.callbacks, fresh.byPart, fresh.grants
	p.calls, p.runs, p.approvals, p.lists = fresh.calls, fresh.runs, fresh.approvals, fresh.lists
}
