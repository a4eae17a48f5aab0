package memstore

import (
	"context"
	"sync"
	"time"
)

// requestsSpace is the in-process store's Open Responses request records,
// by user, session and response, each dropped ttl after its put
// (expiringMap). Every operation drops what expired first.
type requestsSpace struct {
	now    func() time.Time
	closed *closedFlag // the store's: set by Close

	mu      sync.Mutex
	records *expiringMap[requestKey, []byte]
}

// requestKey names one response's record.
type requestKey struct{ user, session, id string }

func requestKeyLess(a, b requestKey) bool {
	if a.user != b.user {
		return a.user < b.user
	}
	if a.session != b.session {
		return a.session < b.session
	}
	return a.id < b.id
}

// newRequestsSpace makes the request records' part; records last ttl
// after their put.
func newRequestsSpace(now func() time.Time, ttl time.Duration, closed *closedFlag) *requestsSpace {
	return &requestsSpace{now: now, closed: closed, records: newExpiringMap[requestKey, []byte](ttl, requestKeyLess)}
}

// sweep drops the records that expired before now.
func (p *requestsSpace) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records.dropExpired(now)
}

// close drops every record (the part has no goroutines).
func (p *requestsSpace) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records.clear()
}

// GetResponseRequest reads the record of a response.
func (p *requestsSpace) GetResponseRequest(ctx context.Context, user, session, id string) ([]byte, bool, error) {
	if err := p.closed.check(); err != nil {
		return nil, false, err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	rec, ok := p.records.get(requestKey{user, session, id}, now)
	if !ok {
		return nil, false, nil
	}
	return append([]byte(nil), rec...), true, nil
}

// PutResponseRequest keeps (or replaces) the record of a response.
func (p *requestsSpace) PutResponseRequest(ctx context.Context, user, session, id string, rec []byte) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records.put(requestKey{user, session, id}, append([]byte(nil), rec...), now)
	return nil
}
