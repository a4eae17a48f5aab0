package memstore

import (
	"sync"
	"time"
)

// deadlineSet is a set of keys, each live until its own deadline; safe
// for concurrent use. A key whose deadline has passed reads as absent, and
// every put drops all such keys once the map has doubled since the last
// sweep (and holds at least twice least keys), so memory follows the live
// keys. The live MCP sessions and the triggers' deliveries are kept in
// one.
type deadlineSet[K comparable] struct {
	least int // no sweep below twice this many keys

	mu    sync.Mutex
	until map[K]time.Time
	swept int // the map's size after the last sweep
}

func newDeadlineSet[K comparable](least int) *deadlineSet[K] {
	return &deadlineSet[K]{least: least, until: map[K]time.Time{}}
}

// put makes k live until until (now is the time of the put).
func (d *deadlineSet[K]) put(k K, until, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.putLocked(k, until, now)
}

// putNew is put unless k is live at now; false when it is (and was left
// as it was).
func (d *deadlineSet[K]) putNew(k K, until, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.liveLocked(k, now) {
		return false
	}
	d.putLocked(k, until, now)
	return true
}

// extend moves the deadline of k to until if k is live at now; false (and
// k dropped) when it is not.
func (d *deadlineSet[K]) extend(k K, until, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.liveLocked(k, now) {
		delete(d.until, k)
		return false
	}
	d.until[k] = until
	return true
}

// remove drops k and reports whether it was live at now.
func (d *deadlineSet[K]) remove(k K, now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	live := d.liveLocked(k, now)
	delete(d.until, k)
	return live
}

// clear drops every key.
func (d *deadlineSet[K]) clear() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.until = map[K]time.Time{}
}

// liveLocked reports whether k is live at now; the caller holds d.mu.
func (d *deadlineSet[K]) liveLocked(k K, now time.Time) bool {
	until, ok := d.until[k]
	return ok && until.After(now)
}

// putLocked is put; the caller holds d.mu.
func (d *deadlineSet[K]) putLocked(k K, until, now time.Time) {
	if len(d.until) >= 2*max(d.swept, d.least) {
		for k, t := range d.until {
			if !t.After(now) {
				delete(d.until, k)
			}
		}
		d.swept = len(d.until)
	}
	d.until[k] = until
}
