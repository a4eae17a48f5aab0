package memstore

import (
	"cmp"
	"context"
	"time"

	"github.com/harnest/harnest/store"
)

// threadsSpace is the in-process store's AG-UI thread records, by user and
// thread, each dropped ttl after its last put (a recordsPart).
type threadsSpace struct {
	*recordsPart[threadKey, store.ThreadRecord]
}

// threadKey names one user's thread.
type threadKey struct{ user, thread string }

func threadKeyLess(a, b threadKey) bool {
	return cmp.Or(cmp.Compare(a.user, b.user), cmp.Compare(a.thread, b.thread)) < 0
}

// newThreadsSpace makes the threads part; records last ttl after their
// last put.
func newThreadsSpace(now func() time.Time, ttl time.Duration, closed *closedFlag) *threadsSpace {
	return &threadsSpace{newRecordsPart[threadKey, store.ThreadRecord](now, ttl, closed, threadKeyLess)}
}

// GetThread reads the user's record of a thread.
func (p *threadsSpace) GetThread(ctx context.Context, user, thread string) (store.ThreadRecord, bool, error) {
	return p.get(threadKey{user, thread})
}

// PutThread replaces the user's record of a thread.
func (p *threadsSpace) PutThread(ctx context.Context, user, thread string, rec store.ThreadRecord) error {
	return p.put(threadKey{user, thread}, rec)
}
