package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harnest/harnest/store"
)

// The relay's pairing codes, participants and their session tokens
// (store.Relay); see relay.go for the data.

// CreatePairingCode stores a single-use pairing code until c.ExpiresAt.
func (p *relaySpace) CreatePairingCode(_ context.Context, c store.PairingCode, now time.Time) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	keep := c.ExpiresAt.Sub(now)
	if keep <= 0 {
		return fmt.Errorf("store: the pairing code expires at %s, before now (%s)", c.ExpiresAt, now)
	}
	c.ExpiresAt = relayMS(c.ExpiresAt)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codes[c.Hash] = &relayCode{PairingCode: c, dropAt: p.now().Add(keep)}
	return nil
}

// ExchangePairingCode consumes a live, matching code and creates the
// participant of the code's owner with its session token.
func (p *relaySpace) ExchangePairingCode(_ context.Context, x store.Pairing) (store.RelayParticipant, error) {
	if err := p.closed.check(); err != nil {
		return store.RelayParticipant{}, err
	}
	if x.TTL <= 0 {
		return store.RelayParticipant{}, fmt.Errorf("store: a pairing needs a positive TTL, not %s", x.TTL)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.codes[x.CodeHash]
	switch {
	case c == nil:
		return store.RelayParticipant{}, store.ErrPairingInvalid
	case !c.ExpiresAt.After(x.Now):
		delete(p.codes, x.CodeHash)
		return store.RelayParticipant{}, store.ErrPairingInvalid
	case c.Name != x.Name || c.Kind != x.Kind:
		return store.RelayParticipant{}, store.ErrPairingMismatch
	}
	delete(p.codes, x.CodeHash)
	drop := p.now().Add(x.TTL)
	part := &relayParticipant{RelayParticipant: store.RelayParticipant{ID: x.ParticipantID, Owner: c.Owner,
		Name: x.Name, Kind: x.Kind, Description: x.Description, State: store.RelayActive,
		PairedAt: relayMS(x.Now), ExpiresAt: relayMS(x.Now.Add(x.TTL)), TokenHash: x.TokenHash, Look: x.Look},
		dropAt: drop, inbox: map[string]bool{}}
	p.owner(c.Owner).participants[x.ParticipantID] = part
	p.sessions[x.TokenHash] = &relaySession{owner: c.Owner, participant: x.ParticipantID, dropAt: drop}
	return part.RelayParticipant, nil
}

// ParticipantByToken finds the live participant of a session token.
func (p *relaySpace) ParticipantByToken(_ context.Context, tokenHash string, now time.Time) (store.RelayParticipant, bool, error) {
	if err := p.closed.check(); err != nil {
		return store.RelayParticipant{}, false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if sess := p.sessions[tokenHash]; sess != nil {
		if part := p.live(sess.owner, sess.participant, now); part != nil && part.TokenHash == tokenHash {
			return part.RelayParticipant, true, nil
		}
	}
	return store.RelayParticipant{}, false, nil
}

// GetParticipant reads one of owner's live participants.
func (p *relaySpace) GetParticipant(_ context.Context, owner, id string, now time.Time) (store.RelayParticipant, bool, error) {
	if err := p.closed.check(); err != nil {
		return store.RelayParticipant{}, false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if part := p.live(owner, id, now); part != nil {
		return part.RelayParticipant, true, nil
	}
	return store.RelayParticipant{}, false, nil
}

// ListParticipants lists owner's live participants, oldest pairing first.
func (p *relaySpace) ListParticipants(_ context.Context, owner string, now time.Time) ([]store.RelayParticipant, error) {
	if err := p.closed.check(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	var out []store.RelayParticipant
	for _, part := range p.owner(owner).participants {
		if part.ExpiresAt.After(now) {
			out = append(out, part.RelayParticipant)
		}
	}
	p.mu.Unlock()
	slices.SortFunc(out, func(a, b store.RelayParticipant) int {
		return cmp.Or(a.PairedAt.Compare(b.PairedAt), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// SetParticipantState pauses or resumes one of owner's live participants.
func (p *relaySpace) SetParticipantState(_ context.Context, owner, id, state string, now time.Time) (bool, error) {
	if err := p.closed.check(); err != nil {
		return false, err
	}
	if state != store.RelayActive && state != store.RelayPaused {
		return false, fmt.Errorf("store: a participant's state is %q or %q, not %q", store.RelayActive, store.RelayPaused, state)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	part := p.live(owner, id, now)
	if part == nil {
		return false, nil
	}
	part.State = state
	p.wake(relayWake{'p', owner, id})
	return true, nil
}

// DisconnectParticipant removes one of owner's live participants with its
// session token, inbox and spacing.
func (p *relaySpace) DisconnectParticipant(_ context.Context, owner, id string, now time.Time) (bool, error) {
	if err := p.closed.check(); err != nil {
		return false, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	part := p.live(owner, id, now)
	if part == nil {
		return false, nil
	}
	delete(p.owners[owner].participants, id)
	delete(p.sessions, part.TokenHash)
	delete(p.says, relaySayKey{owner, id})
	p.wake(relayWake{'p', owner, id})
	return true, nil
}
