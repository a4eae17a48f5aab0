package memstore

import (
	"sync"
	"sync/atomic"
)

// spaceTable holds every space of the store at an index, which the
// shards' maps keep instead of the space itself. The garbage collector
// then reaches the spaces through the table, in the order they were made
// (the order their data lies in memory), instead of through the maps in
// hash order, where each space and each of its objects was a cache miss.
// With 400k stored sessions a collection's mark work was about a third of
// what it was with pointers in the maps (bench/README.md).
//
// A slot is written under the table's lock and by a caller that holds the
// lock of the shard whose map gets (or loses) the index; it is read under
// that shard's lock. Freed indexes are reused, newest first. An index is
// an int32: room for two billion spaces at once.
type spaceTable struct {
	mu     sync.Mutex
	chunks atomic.Pointer[[]*spaceChunk] // grown by a new slice, never changed in place
	used   int32                         // indexes handed out, freed ones included
	free   []int32                       // indexes to reuse
}

// spaceChunkBits sizes a chunk: 1,024 slots, 8 KiB.
const spaceChunkBits = 10

type spaceChunk [1 << spaceChunkBits]*space

// at returns the space at index i.
func (t *spaceTable) at(i int32) *space { return *t.slot(i) }

// slot is index i's place in its chunk.
func (t *spaceTable) slot(i int32) **space {
	return &(*t.chunks.Load())[i>>spaceChunkBits][i&(1<<spaceChunkBits-1)]
}

// add puts sp at a free index and returns it.
func (t *spaceTable) add(sp *space) int32 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var i int32
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
	} else {
		i = t.used
		t.used++
		var chunks []*spaceChunk
		if p := t.chunks.Load(); p != nil {
			chunks = *p
		}
		if int(i>>spaceChunkBits) == len(chunks) {
			grown := append(chunks[:len(chunks):len(chunks)], new(spaceChunk))
			t.chunks.Store(&grown)
		}
	}
	*t.slot(i) = sp
	return i
}

// remove frees index i (its space is no longer kept).
func (t *spaceTable) remove(i int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	*t.slot(i) = nil
	t.free = append(t.free, i)
}
