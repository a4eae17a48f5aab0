package gcfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// The GOGC that puts the heap goal at the floor: none above base once the
// live heap is past half the floor, never above maxPercent, nor above what
// puts Go's least heap goal (4 MiB × GOGC/100) past the floor.
func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		base, want  int
	}{
		{4 * mib, 64 * mib, 100, 1500},
		{32 * mib, 64 * mib, 100, 100},
		{40 * mib, 64 * mib, 100, 100},
		{1 << 30, 64 * mib, 100, 100},
		{4 * mib, 64 * mib, 2000, 2000},
		{1024, 64 * mib, 100, 1600},      // Go's least goal, 4 MiB × 16, is the floor
		{0, 64 * mib, 100, 1600},         // before the first collection: the same
		{1024, 1 << 30, 100, maxPercent}, // 4 MiB × 256 would be the floor
		{0, 2 * mib, 100, 100},           // a floor under Go's least goal is none
	} {
		if got := percentFor(c.live, c.floor, c.base); got != c.want {
			t.Errorf("live %d, floor %d, base %d: GOGC %d, want %d", c.live, c.floor, c.base, got, c.want)
		}
	}
}

// garbageCycles counts the collections while n bytes of garbage are made
// (a small live heap: this test's).
func garbageCycles(n int) uint32 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for made := 0; made < n; made += 64 << 10 {
		sink = make([]byte, 64<<10)
	}
	runtime.ReadMemStats(&after)
	return after.NumGC - before.NumGC
}

var sink []byte

// With a floor of 256 MiB, 128 MiB of garbage cost at most a collection
// or two (the one running when it started, the one that sets the floor);
// without it the same garbage took many. Stop gives GOGC back.
func TestFloorDefersCollections(t *testing.T) {
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	runtime.GC()
	without := garbageCycles(128 << 20)
	f := Start(256 << 20)
	if f == nil {
		t.Fatal("no floor with GOGC=100")
	}
	runtime.GC() // the first cycle after Start sets the floor from the live heap
	with := garbageCycles(128 << 20)
	f.Stop()
	if with > 2 || without < 8 {
		t.Fatalf("collections for 128 MiB of garbage: %d with the floor, %d without; want at most 2 and at least 8", with, without)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC after Stop is %d, want 100 back", got)
	}
	f.Stop() // twice: nothing more
	var none *Floor
	none.Stop()
}

// A floor of 0, or a collector that is off, is no floor.
func TestNoFloor(t *testing.T) {
	if f := Start(0); f != nil {
		f.Stop()
		t.Fatal("a floor of 0 started")
	}
	base := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(base)
	if f := Start(64 << 20); f != nil {
		f.Stop()
		t.Fatal("a floor started with the collector off")
	}
}
