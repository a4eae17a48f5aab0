package memstore

import (
	"context"

	"github.com/harnest/harnest/runtime/store"
)

// A transcript is an append-only slice of message JSON: a message's offset
// is its index, so a page from any offset is a slice, whatever the
// transcript's length.

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
	n := int64(len(sp.transcript))
	if from >= n {
		return nil, nil
	}
	end := n
	if limit > 0 {
		end = min(n, from+int64(limit))
	}
	return storedMessages(sp.transcript, from, end), nil
}

// LastMessages reads the newest limit transcript messages (limit <= 0:
// all of them), oldest first.
func (s *Store) LastMessages(ctx context.Context, user, session string, limit int) ([]store.StoredMessage, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil || len(sp.transcript) == 0 {
		return nil, nil
	}
	n := int64(len(sp.transcript))
	from := int64(0)
	if limit > 0 {
		from = max(0, n-int64(limit))
	}
	return storedMessages(sp.transcript, from, n), nil
}

// storedMessages returns the messages from offset from to end (exclusive).
func storedMessages(transcript [][]byte, from, end int64) []store.StoredMessage {
	out := make([]store.StoredMessage, 0, end-from)
	for i := from; i < end; i++ {
		out = append(out, store.StoredMessage{Offset: i, JSON: transcript[i]})
	}
	return out
}

// appendMessages appends copies of msgs to the transcript, all in one
// buffer (one allocation for the step's messages).
func (sp *space) appendMessages(msgs [][]byte) {
	size := 0
	for _, m := range msgs {
		size += len(m)
	}
	buf := make([]byte, 0, size)
	for _, m := range msgs {
		start := len(buf)
		buf = append(buf, m...)
		sp.transcript = append(sp.transcript, buf[start:len(buf):len(buf)])
	}
}
