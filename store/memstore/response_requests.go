package memstore

import (
	"context"
	"sync"
	"time"

	"github.com/google/btree"
)

// requestsSpace is the in-process store's Open Responses request records:
// a map by user, session and response, and a B-tree of expiry times that
// drops each record ttl after its put. Every operation drops what expired
// first.
type requestsSpace struct {
	now    func() time.Time
	ttl    time.Duration
	closed *closedFlag // the store's: set by Close

	mu      sync.Mutex
	records map[requestKey]storedRequest
	expiry  *btree.BTreeG[requestExpiry]
}

// requestKey names one response's record.
type requestKey struct{ user, session, id string }

// storedRequest is a record with the time it expires.
type storedRequest struct {
	rec     []byte
	expires int64 // Unix nanoseconds
}

// requestExpiry is a record in the expiry tree, soonest first.
type requestExpiry struct {
	at  int64 // Unix nanoseconds
	key requestKey
}

func requestExpiresFirst(a, b requestExpiry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.key.user != b.key.user {
		return a.key.user < b.key.user
	}
	if a.key.session != b.key.session {
		return a.key.session < b.key.session
	}
	return a.key.id < b.key.id
}

// newRequestsSpace makes the request records' part; records last ttl
// after their put.
func newRequestsSpace(now func() time.Time, ttl time.Duration, closed *closedFlag) *requestsSpace {
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	return &requestsSpace{now: now, ttl: ttl, closed: closed, records: map[requestKey]storedRequest{},
		expiry: btree.NewG(16, requestExpiresFirst)}
}

// sweep drops the records that expired before now.
func (p *requestsSpace) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
}

// close drops every record (the part has no goroutines).
func (p *requestsSpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records = map[requestKey]storedRequest{}
	p.expiry.Clear(false)
}

// dropExpired removes every record whose expiry time is not after now.
// The caller holds p.mu.
func (p *requestsSpace) dropExpired(now time.Time) {
	for {
		e, ok := p.expiry.Min()
		if !ok || e.at > now.UnixNano() {
			return
		}
		p.expiry.DeleteMin()
		delete(p.records, e.key)
	}
}

// GetResponseRequest reads the record of a response.
func (p *requestsSpace) GetResponseRequest(ctx context.Context, user, session, id string) ([]byte, bool, error) {
	if err := p.closed.check(); err != nil {
		return nil, false, err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
	r, ok := p.records[requestKey{user, session, id}]
	if !ok {
		return nil, false, nil
	}
	return append([]byte(nil), r.rec...), true, nil
}

// PutResponseRequest keeps (or replaces) the record of a response.
func (p *requestsSpace) PutResponseRequest(ctx context.Context, user, session, id string, rec []byte) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	now := p.now()
	key := requestKey{user, session, id}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropExpired(now)
	if old, ok := p.records[key]; ok {
		p.expiry.Delete(requestExpiry{at: old.expires, key: key})
	}
	r := storedRequest{rec: append([]byte(nil), rec...), expires: now.Add(p.ttl).UnixNano()}
	p.records[key] = r
	p.expiry.ReplaceOrInsert(requestExpiry{at: r.expires, key: key})
	return nil
}
