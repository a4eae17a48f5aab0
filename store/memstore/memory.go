package memstore

import (
	"container/heap"
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// memorySpace keeps long-term memory (the Memory slice): one scope per
// agent and user, each under the space's lock. A scope holds its items by
// namespace and key, each namespace's keys in order (for pages), an
// inverted index of tokens (for keyword search) and a heap of expiry
// times (for the sweep).
type memorySpace struct {
	closed *closedFlag
	mu     sync.Mutex
	scopes map[store.MemoryScope]*memScope
}

type memField struct{ ns, key string }

type memScope struct {
	items    map[memField]*memItem
	byID     []*memItem          // items by their number (nil: free), for search's dense scores
	free     []int32             // numbers free for reuse
	keys     map[string][]string // namespace -> its keys, sorted
	postings map[string][]int32  // token -> the numbers of the items that have it, sorted
	expiry   expiryHeap          // may hold stale entries: checked against the item
}

type memItem struct {
	item   store.MemoryItem
	tokens []string
	id     int32
}

func newMemorySpace(closed *closedFlag) *memorySpace {
	return &memorySpace{closed: closed, scopes: map[store.MemoryScope]*memScope{}}
}

// lockScope locks the space and returns the scope sc, made when create
// (nil when there is none); the caller unlocks the space. Once the store
// is closed it returns ErrClosed and locks nothing.
func (s *memorySpace) lockScope(sc store.MemoryScope, create bool) (*memScope, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	m := s.scopes[sc]
	if m == nil && create {
		m = &memScope{items: map[memField]*memItem{}, keys: map[string][]string{}, postings: map[string][]int32{}}
		s.scopes[sc] = m
	}
	return m, nil
}

// copyItem is what a read returns: no embedding, a value of its own.
func copyItem(sc store.MemoryScope, it store.MemoryItem) store.MemoryItem {
	it.Scope = sc
	it.Value = append([]byte(nil), it.Value...)
	it.Embedding = nil
	return it
}

// PutMemory stores an item.
func (s *memorySpace) PutMemory(ctx context.Context, item store.MemoryItem, now time.Time) (store.MemoryItem, error) {
	m, err := s.lockScope(item.Scope, true)
	if err != nil {
		return store.MemoryItem{}, err
	}
	defer s.mu.Unlock()
	m.sweep(now)
	f := memField{item.Namespace, item.Key}
	now = now.UTC().Truncate(time.Millisecond) // as the Redis store keeps times
	item.CreatedAt, item.UpdatedAt = now, now
	item.ExpiresAt = item.ExpiresAt.UTC().Truncate(time.Millisecond)
	if len(item.Value) == 0 {
		item.Value = []byte("null")
	}
	if old, ok := m.items[f]; ok {
		if old.item.Live(now) {
			item.CreatedAt = old.item.CreatedAt
		}
		m.drop(f)
	}
	item.Value = append([]byte(nil), item.Value...)
	item.Embedding = slices.Clone(item.Embedding)
	it := &memItem{item: item, tokens: store.MemoryTokens(item), id: m.number()}
	m.items[f] = it
	m.byID[it.id] = it
	keys := m.keys[f.ns]
	i := sort.SearchStrings(keys, f.key)
	m.keys[f.ns] = slices.Insert(keys, i, f.key)
	for _, tk := range it.tokens {
		p := m.postings[tk]
		i, _ := slices.BinarySearch(p, it.id)
		m.postings[tk] = slices.Insert(p, i, it.id)
	}
	if !item.ExpiresAt.IsZero() {
		heap.Push(&m.expiry, expiryEntry{at: item.ExpiresAt, f: f})
	}
	return copyItem(item.Scope, item), nil
}

// GetMemory reads one live item.
func (s *memorySpace) GetMemory(ctx context.Context, sc store.MemoryScope, namespace, key string, now time.Time) (store.MemoryItem, bool, error) {
	m, err := s.lockScope(sc, false)
	if err != nil {
		return store.MemoryItem{}, false, err
	}
	defer s.mu.Unlock()
	if m == nil {
		return store.MemoryItem{}, false, nil
	}
	it, ok := m.items[memField{namespace, key}]
	if !ok || !it.item.Live(now) {
		return store.MemoryItem{}, false, nil
	}
	return copyItem(sc, it.item), true, nil
}

// ListMemory returns a page of a namespace's live items in key order.
func (s *memorySpace) ListMemory(ctx context.Context, sc store.MemoryScope, namespace, after string, limit int, now time.Time) ([]store.MemoryItem, error) {
	m, err := s.lockScope(sc, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if m == nil {
		return nil, nil
	}
	m.sweep(now)
	keys := m.keys[namespace]
	var out []store.MemoryItem
	for i := sort.Search(len(keys), func(i int) bool { return keys[i] > after }); i < len(keys) && len(out) < limit; i++ {
		it := m.items[memField{namespace, keys[i]}]
		if it.item.Live(now) {
			out = append(out, copyItem(sc, it.item))
		}
	}
	return out, nil
}

// DeleteMemory removes an item.
func (s *memorySpace) DeleteMemory(ctx context.Context, sc store.MemoryScope, namespace, key string, now time.Time) (bool, error) {
	m, err := s.lockScope(sc, false)
	if err != nil {
		return false, err
	}
	defer s.mu.Unlock()
	if m == nil {
		return false, nil
	}
	m.sweep(now)
	f := memField{namespace, key}
	it, ok := m.items[f]
	if !ok {
		return false, nil
	}
	m.drop(f)
	s.forgetEmpty(sc, m)
	return it.item.Live(now), nil
}

// forgetEmpty drops a scope left with nothing.
func (s *memorySpace) forgetEmpty(sc store.MemoryScope, m *memScope) {
	if len(m.items) == 0 {
		delete(s.scopes, sc)
	}
}

// drop removes an item with its index entries (its expiry entry goes
// stale).
func (m *memScope) drop(f memField) {
	it, ok := m.items[f]
	if !ok {
		return
	}
	delete(m.items, f)
	m.byID[it.id] = nil
	m.free = append(m.free, it.id)
	keys := m.keys[f.ns]
	if i := sort.SearchStrings(keys, f.key); i < len(keys) && keys[i] == f.key {
		keys = slices.Delete(keys, i, i+1)
	}
	if len(keys) == 0 {
		delete(m.keys, f.ns)
	} else {
		m.keys[f.ns] = keys
	}
	for _, tk := range it.tokens {
		p := m.postings[tk]
		if i, found := slices.BinarySearch(p, it.id); found {
			p = slices.Delete(p, i, i+1)
		}
		if len(p) == 0 {
			delete(m.postings, tk)
		} else {
			m.postings[tk] = p
		}
	}
}

// number is a free item number.
func (m *memScope) number() int32 {
	if n := len(m.free); n > 0 {
		id := m.free[n-1]
		m.free = m.free[:n-1]
		return id
	}
	m.byID = append(m.byID, nil)
	return int32(len(m.byID) - 1)
}

// sweep drops up to store.MemorySweep items expired at now.
func (m *memScope) sweep(now time.Time) {
	for n := 0; n < store.MemorySweep && m.expiry.Len() > 0 && !now.Before(m.expiry[0].at); n++ {
		e := heap.Pop(&m.expiry).(expiryEntry)
		if it, ok := m.items[e.f]; ok && it.item.ExpiresAt.Equal(e.at) {
			m.drop(e.f)
		}
	}
}

// expiryHeap orders items' expiry times, the soonest first.
type expiryEntry struct {
	at time.Time
	f  memField
}

type expiryHeap []expiryEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiryEntry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
