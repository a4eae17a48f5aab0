package memstore

import (
	"bytes"
	"context"

	"github.com/harnest/harnest/store"
)

// A session's compaction state is a field of its space, dropped with it;
// its compaction items go to the transcript like any message.

var _ store.Compactions = (*Store)(nil)

// CompactionState reads the session's compaction state (nil: none) and
// its newest last messages (none when last < 1).
func (s *Store) CompactionState(ctx context.Context, user, session string, last int) ([]byte, []store.StoredMessage, error) {
	if err := s.closed.check(); err != nil {
		return nil, nil, err
	}
	sh, sp := s.lockSpace(user, session)
	defer sh.mu.Unlock()
	if sp == nil || !sp.hasSession {
		return nil, nil, nil
	}
	var tail []store.StoredMessage
	if n := int64(sp.transcript.len()); last > 0 && n > 0 {
		tail = storedMessages(&sp.transcript, max(0, n-int64(last)), n)
	}
	if sp.compaction == nil {
		return nil, tail, nil
	}
	return copyBytes(sp.compaction), tail, nil
}

// SaveCompaction replaces the state and appends the item, when set, if
// the session exists, the lease is as c.Holder says and the state is
// still c.Prev.
func (s *Store) SaveCompaction(ctx context.Context, c store.CompactionSave) (int64, error) {
	if err := s.closed.check(); err != nil {
		return -1, err
	}
	sh, sp := s.lockSpace(c.User, c.Session)
	defer sh.mu.Unlock()
	if sp == nil || !sp.hasSession {
		return -1, store.ErrSessionNotFound
	}
	holder := sp.lease.heldBy(s.now())
	switch {
	case c.Holder == "" && holder != "":
		return -1, store.ErrSessionBusy
	case c.Holder != "" && holder != c.Holder:
		return -1, store.ErrLeaseLost
	case !bytes.Equal(sp.compaction, c.Prev):
		return -1, store.ErrCompactionChanged
	}
	sp.compaction = copyBytes(c.State)
	if c.Item == nil {
		return -1, nil
	}
	offset := int64(sp.transcript.len())
	sp.transcript.append([][]byte{c.Item})
	sp.session.updatedAt = c.Now
	return offset, nil
}
