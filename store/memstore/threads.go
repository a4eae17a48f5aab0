package memstore

import (
	"context"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// threadsSpace is the in-process store's AG-UI thread records, by user and
// thread, each dropped ttl after its last put (expiringMap). Every
// operation drops what expired first.
type threadsSpace struct {
	now    func() time.Time
	closed *closedFlag // the store's: set by Close

	mu      sync.Mutex
	records *expiringMap[threadKey, store.ThreadRecord]
}

// threadKey names one user's thread.
type threadKey struct{ user, thread string }

func threadKeyLess(a, b threadKey) bool {
	if a.user != b.user {
		return a.user < b.user
	}
	return a.thread < b.thread
}

// newThreadsSpace makes the threads part; records last ttl after their
// last put.
func newThreadsSpace(now func() time.Time, ttl time.Duration, closed *closedFlag) *threadsSpace {
	if now == nil {
		now = time.Now
	}
	return &threadsSpace{now: now, closed: closed, records: newExpiringMap[threadKey, store.ThreadRecord](ttl, threadKeyLess)}
}

// sweep drops the records that expired before now.
func (p *threadsSpace) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records.dropExpired(now)
}

// close drops every record (the part has no goroutines).
func (p *threadsSpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records.clear()
}

// GetThread reads the user's record of a thread.
func (p *threadsSpace) GetThread(ctx context.Context, user, thread string) (store.ThreadRecord, bool, error) {
	if err := p.closed.check(); err != nil {
		return store.ThreadRecord{}, false, err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	rec, ok := p.records.get(threadKey{user, thread}, now)
	return rec, ok, nil
}

// PutThread replaces the user's record of a thread.
func (p *threadsSpace) PutThread(ctx context.Context, user, thread string, rec store.ThreadRecord) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records.put(threadKey{user, thread}, rec, now)
	return nil
}
