package memstore

import (
	"bytes"
	"context"

	"github.com/harnest/harnest/store"
)

// Steers kept for running responses (store.Steers): a space's steers, by
// response ID, in the order they were kept. Each operation is one critical
// section of the session's shard; the steers go with the space.

// AppendSteer keeps a steer for a running response: see store.Steers.
func (s *Store) AppendSteer(ctx context.Context, user, session, responseID string, steer []byte) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	sh, sp := s.lockSpace(user, session)
	if sp == nil {
		sh.mu.Unlock()
		return store.ErrReceiptFinal
	}
	defer sh.mu.Unlock()
	r := sp.responses.get(responseID)
	if r == nil {
		return store.ErrReceiptFinal
	}
	receipt, ok := r.liveReceipt(s.now())
	switch {
	case !ok || r.final:
		return store.ErrReceiptFinal
	case bytes.Contains(receipt, queuedStatus):
		return store.ErrResponseQueued
	}
	if sp.steers == nil {
		sp.steers = map[string][][]byte{}
	}
	sp.steers[responseID] = append(sp.steers[responseID], copyBytes(steer))
	return nil
}

// TakeSteers takes the steers kept for a response, fenced by the run's
// epoch: see store.Steers.
func (s *Store) TakeSteers(ctx context.Context, user, session, responseID string, epoch int) ([][]byte, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	sh, sp := s.lockSpace(user, session)
	if sp == nil {
		sh.mu.Unlock()
		return nil, nil
	}
	defer sh.mu.Unlock()
	if sp.responses.get(responseID).fenced(epoch) {
		return nil, store.ErrFenced
	}
	taken := sp.steers[responseID]
	delete(sp.steers, responseID)
	if len(sp.steers) == 0 {
		sp.steers = nil
	}
	return taken, nil
}
