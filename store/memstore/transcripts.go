package memstore

import (
	"context"

	"github.com/harnest/harnest/store"
)

// A transcript's messages are held in append-only buffers without
// pointers (transcript.go): a message's offset is its index, so a page
// from any offset is a slice, whatever the transcript's length.

// Messages reads up to limit transcript messages starting at offset from,
// in order (limit <= 0: all of them).
func (s *Store) Messages(ctx context.Context, user, session string, from int64, limit int) ([]store.StoredMessage, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil {
		return nil, nil
	}
	from = max(from, 0)
	n := int64(sp.transcript.len())
	if from >= n {
		return nil, nil
	}
	end := n
	if limit > 0 {
		end = min(n, from+int64(limit))
	}
	return storedMessages(&sp.transcript, from, end), nil
}

// LastMessages reads the newest limit transcript messages (limit <= 0:
// all of them), oldest first.
func (s *Store) LastMessages(ctx context.Context, user, session string, limit int) ([]store.StoredMessage, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil || sp.transcript.len() == 0 {
		return nil, nil
	}
	n := int64(sp.transcript.len())
	from := int64(0)
	if limit > 0 {
		from = max(0, n-int64(limit))
	}
	return storedMessages(&sp.transcript, from, n), nil
}

// storedMessages returns the messages from offset from to end (exclusive).
func storedMessages(t *transcript, from, end int64) []store.StoredMessage {
	out := make([]store.StoredMessage, 0, end-from)
	for i := from; i < end; i++ {
		out = append(out, store.StoredMessage{Offset: i, JSON: t.message(int(i))})
	}
	return out
}
