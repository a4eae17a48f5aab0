package memstore

import (
	"sync"
	"time"
)

// recordsPart is a part of the store that keeps one record per key, each
// dropped ttl after its last put (expiringMap); every operation drops what
// expired first. The AG-UI threads (threadsSpace) and the Open Responses
// requests (requestsSpace) are each one.
type recordsPart[K comparable, V any] struct {
	now    func() time.Time
	closed *closedFlag // the store's: set by Close

	mu      sync.Mutex
	records *expiringMap[K, V]
}

// newRecordsPart makes a part whose records last ttl after their last put;
// keyLess orders keys that expire at the same time.
func newRecordsPart[K comparable, V any](now func() time.Time, ttl time.Duration, closed *closedFlag, keyLess func(a, b K) bool) *recordsPart[K, V] {
	if now == nil {
		now = time.Now
	}
	return &recordsPart[K, V]{now: now, closed: closed, records: newExpiringMap[K, V](ttl, keyLess)}
}

// get reads the record of key.
func (p *recordsPart[K, V]) get(key K) (V, bool, error) {
	if err := p.closed.check(); err != nil {
		var none V
		return none, false, err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	rec, ok := p.records.get(key, now)
	return rec, ok, nil
}

// put keeps (or replaces) the record of key.
func (p *recordsPart[K, V]) put(key K, rec V) error {
	if err := p.closed.check(); err != nil {
		return err
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records.put(key, rec, now)
	return nil
}

// sweep drops the records that expired before now.
func (p *recordsPart[K, V]) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records.dropExpired(now)
}

// close drops every record (the part has no goroutines).
func (p *recordsPart[K, V]) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records.clear()
}
