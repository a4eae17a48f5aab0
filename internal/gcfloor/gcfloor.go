package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// maxPercent bounds the GOGC the floor sets (a live heap of a few hundred
// kilobytes would otherwise ask for hundreds of thousands).
const maxPercent = 10000

// heapMinimum is Go's least heap goal at GOGC=100, which GOGC scales: the
// goal is never below heapMinimum × GOGC/100, also before the first
// collection, when nothing is live yet.
const heapMinimum = 4 << 20

// Floor adjusts GOGC after every collection until Stop.
type Floor struct {
	floor uint64 // bytes
	base  int    // the GOGC the process ran with: never set lower

	mu      sync.Mutex // guards the fields below and the calls of SetGCPercent
	current int        // the GOGC set last
	stopped bool
	sample  []metrics.Sample
}

// Start keeps the heap goal at floor bytes or more, from now until Stop.
// It returns nil (and changes nothing) when the collector is off
// (GOGC=off) or floor is 0.
func Start(floor uint64) *Floor {
	base := debug.SetGCPercent(100)
	debug.SetGCPercent(base)
	if base < 0 || floor == 0 {
		return nil
	}
	f := &Floor{floor: floor, base: base, current: base,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	f.adjust()
	f.watchNextCycle()
	return f
}

// Stop gives the process its own GOGC back. Stopping a nil Floor does
// nothing.
func (f *Floor) Stop() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	debug.SetGCPercent(f.base)
}

// watchNextCycle calls afterCycle once the next collection is over: the
// cleanup of an object nothing references runs after the collection that
// finds it unreachable.
func (f *Floor) watchNextCycle() {
	runtime.AddCleanup(&cycleMarker{}, func(f *Floor) { f.afterCycle() }, f)
}

// cycleMarker is the object whose collection tells that a cycle ended. It
// holds a pointer so that it is not batched with other tiny objects (whose
// block would be freed only once all of them are).
type cycleMarker struct {
	_ *int
	_ [16]byte
}

// afterCycle sets GOGC for the next collection and watches for its end.
func (f *Floor) afterCycle() {
	if !f.adjust() {
		return
	}
	f.watchNextCycle()
}

// adjust sets GOGC from the live heap the last collection left; it reports
// false once stopped.
func (f *Floor) adjust() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	metrics.Read(f.sample)
	live := f.sample[0].Value.Uint64()
	if p := percentFor(live, f.floor, f.base); p != f.current {
		debug.SetGCPercent(p)
		f.current = p
	}
	return true
}

// percentFor is the GOGC that puts the heap goal, live × (1 + GOGC/100),
// at floor or above, never below base nor above maxPercent. Nor above
// what puts Go's least goal (heapMinimum × GOGC/100) past the floor: a
// live heap under heapMinimum (or none, before the first collection)
// would otherwise move the goal far above the floor, to 400 MiB at the
// most.
func percentFor(live, floor uint64, base int) int {
	most := min(floor*100/heapMinimum, maxPercent)
	want := most
	if live > 0 {
		want = min((floor-min(live, floor))*100/live, most)
	}
	return max(int(want), base)
}
