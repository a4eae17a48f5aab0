package memstore

import (
	"context"
	"sync"
	"time"

	"github.com/google/btree"

	"github.com/harnest/harnest/store"
)

// threadsSpace is the in-process store's AG-UI thread records: a map by
// user and thread, and a B-tree of expiry times that drops each record ttl
// after its last put. Every operation drops what expired first.
type threadsSpace struct {
	now    func() time.Time
	ttl    time.Duration
	closed *closedFlag // the store's: set by Close

	mu      sync.Mutex
	records map[threadKey]storedThread
	expiry  *btree.BTreeG[threadExpiry]
}

// threadKey names one user's thread.
type threadKey struct{ user, thread string }

// storedThread is a record with the time it expires.
type storedThread struct {
	rec     store.ThreadRecord
	expires int64 // Unix nanoseconds
}

// threadExpiry is a record in the expiry tree, soonest first.
type threadExpiry struct {
	at  int64 // Unix nanoseconds
	key threadKey
}

func threadExpiresFirst(a, b threadExpiry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.key.user != b.key.user {
		return a.key.user < b.key.user
	}
	return a.key.thread < b.key.thread
}

// newThreadsSpace makes the threads part; records last ttl after their
// last put.
func newThreadsSpace(now func() time.Time, ttl time.Duration, closed *closedFlag) *threadsSpace {
	if now == nil {
		now = time.Now
	}
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	return &threadsSpace{now: now, ttl: ttl, closed: closed, records: map[threadKey]storedThread{},
		expiry: btree.NewG(16, threadExpiresFirst)}
}

// sweep drops the records that expired before now.
func (p *threadsSpace) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
}

// close drops every record (the part has no goroutines).
func (p *threadsSpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records = map[threadKey]storedThread{}
	p.expiry.Clear(false)
}

// dropExpired removes every record whose expiry time is not after now.
// The caller holds p.mu.
func (p *threadsSpace) dropExpired(now time.Time) {
	for {
		e, ok := p.expiry.Min()
		if !ok || e.at > now.UnixNano() {
			return
		}
		p.expiry.DeleteMin()
		delete(p.records, e.key)
	}
}

// GetThread reads the user's record of a thread.
func (p *threadsSpace) GetThread(ctx context.Context, user, thread string) (store.ThreadRecord, bool, error) {
	if err := p.closed.check(); err != nil {
		return store.ThreadRecord{}, false, err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
	t, ok := p.records[threadKey{user, thread}]
	return t.rec, ok, nil
}

// PutThread replaces the user's record of a thread.
func (p *threadsSpace) PutThread(ctx context.Context, user, thread string, rec store.ThreadRecord) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	now := p.now()
	key := threadKey{user, thread}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
	if old, ok := p.records[key]; ok {
		p.expiry.Delete(threadExpiry{at: old.expires, key: key})
	}
	t := storedThread{rec: rec, expires: now.Add(p.ttl).UnixNano()}
	p.records[key] = t
	p.expiry.ReplaceOrInsert(threadExpiry{at: t.expires, key: key})
	return nil
}
