package memstore

import (
	"time"

	"github.com/google/btree"
)

// expiringMap is a map whose entries each expire ttl after their last put,
// with a B-tree of expiry times, soonest first, so that dropping what
// expired costs only what expired. The records of a part that keeps a
// value per key for a while (AG-UI threads, Open Responses requests) live
// in one; the part holds the lock.
type expiringMap[K comparable, V any] struct {
	ttl     time.Duration
	records map[K]expiringValue[V]
	expiry  *btree.BTreeG[expiringKey[K]]
}

// expiringValue is a value with the time it expires.
type expiringValue[V any] struct {
	value   V
	expires int64 // Unix nanoseconds
}

// expiringKey is a key in the expiry tree.
type expiringKey[K any] struct {
	at  int64 // Unix nanoseconds
	key K
}

// newExpiringMap makes a map whose entries last ttl (24 h when not
// positive); keyLess orders keys that expire at the same time.
func newExpiringMap[K comparable, V any](ttl time.Duration, keyLess func(a, b K) bool) *expiringMap[K, V] {
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	less := func(a, b expiringKey[K]) bool {
		if a.at != b.at {
			return a.at < b.at
		}
		return keyLess(a.key, b.key)
	}
	return &expiringMap[K, V]{ttl: ttl, records: map[K]expiringValue[V]{}, expiry: btree.NewG(16, less)}
}

// get returns the value of key, having dropped what expired by now.
func (m *expiringMap[K, V]) get(key K, now time.Time) (V, bool) {
	m.dropExpired(now)
	r, ok := m.records[key]
	return r.value, ok
}

// put keeps (or replaces) the value of key until ttl after now.
func (m *expiringMap[K, V]) put(key K, value V, now time.Time) {
	m.dropExpired(now)
	if old, ok := m.records[key]; ok {
		m.expiry.Delete(expiringKey[K]{at: old.expires, key: key})
	}
	r := expiringValue[V]{value: value, expires: now.Add(m.ttl).UnixNano()}
	m.records[key] = r
	m.expiry.ReplaceOrInsert(expiringKey[K]{at: r.expires, key: key})
}

// dropExpired removes every entry whose expiry time is not after now.
func (m *expiringMap[K, V]) dropExpired(now time.Time) {
	for {
		e, ok := m.expiry.Min()
		if !ok || e.at > now.UnixNano() {
			return
		}
		m.expiry.DeleteMin()
		delete(m.records, e.key)
	}
}

// clear drops every entry.
func (m *expiringMap[K, V]) clear() {
	m.records = map[K]expiringValue[V]{}
	m.expiry.Clear(false)
}
