package memstore

import (
	"errors"
	"fmt"
	"testing"

	"github.com/harnest/harnest/store"
)

// TestEventLogKeepsEventsAcrossTrims writes batches past MaxEvents with
// several types and checks every held event's sequence, type and JSON,
// the trim by whole batches, and that a repeated batch is not logged twice.
func TestEventLogKeepsEventsAcrossTrims(t *testing.T) {
	types := []string{"a", "response.created", "b", "error", "c"} // common and other types
	makeBatch := func(from, n int) []store.Event {
		b := make([]store.Event, n)
		for i := range b {
			seq := from + i
			b[i] = store.Event{Sequence: seq, Type: types[seq%len(types)], JSON: fmt.Appendf(nil, `{"sequence":%d}`, seq)}
		}
		return b
	}
	var l eventLog
	const batch = 700
	next := 0
	for next < store.MaxEvents+3*batch {
		l.add(makeBatch(next, batch))
		l.add(makeBatch(next, batch)) // written again: nothing new
		next += batch
	}
	held, err := l.after(-1, 0)
	if !errors.Is(err, store.ErrEventsTrimmed) || held != nil {
		t.Fatalf("reading from the start of a trimmed log: %d events, %v; want ErrEventsTrimmed", len(held), err)
	}
	first := l.events[0].sequence
	if first%batch != 0 || next-first < store.MaxEvents || next-first >= store.MaxEvents+batch {
		t.Fatalf("the log holds from %d to %d: not whole batches covering the last %d", first, next-1, store.MaxEvents)
	}
	held, err = l.after(first-1, 0)
	if err != nil || len(held) != next-first {
		t.Fatalf("reading what is held: %d events, %v; want %d", len(held), err, next-first)
	}
	for i, e := range held {
		seq := first + i
		if e.Sequence != seq || e.Type != types[seq%len(types)] || string(e.JSON) != fmt.Sprintf(`{"sequence":%d}`, seq) {
			t.Fatalf("event %d is %d %q %s", seq, e.Sequence, e.Type, e.JSON)
		}
	}
	page, err := l.after(first+10, 5)
	if err != nil || len(page) != 5 || page[0].Sequence != first+11 {
		t.Fatalf("a page of 5 after %d: %v, %v", first+10, page, err)
	}
	if len(l.types) != 0 {
		t.Fatalf("the log's own type table holds %q, want none while the shared table has room", l.types)
	}
}

// TestSharedTypesAreBounded fills a table of event types: each name keeps
// its number, and past maxSharedTypes a name gets none (the log then keeps
// it in its own table).
func TestSharedTypesAreBounded(t *testing.T) {
	var table sharedTypes
	for i := range maxSharedTypes {
		name := fmt.Sprintf("type.%d", i)
		n, ok := table.number(name)
		if again, _ := table.number(name); !ok || again != n || table.name(n) != name {
			t.Fatalf("%s: number %d (%v), again %d, name %q", name, n, ok, again, table.name(n))
		}
	}
	if _, ok := table.number("one.too.many"); ok {
		t.Fatal("a type past the table's room got a number")
	}
	if n, ok := table.number("type.3"); !ok || table.name(n) != "type.3" {
		t.Fatal("a known type lost its number once the table was full")
	}
}

// TestResponseSetFirstSlot checks the response held in the set itself: it
// is found by its ID, a second goes to the map, and a dropped first slot
// is reused with a version that moved on.
func TestResponseSetFirstSlot(t *testing.T) {
	var rs responseSet
	a := rs.getOrMake("a")
	a.version = 3
	b := rs.getOrMake("b")
	if rs.get("a") != a || rs.get("b") != b || a == b || rs.len() != 2 || rs.get("") != nil {
		t.Fatalf("after two responses: len %d, a %p b %p", rs.len(), rs.get("a"), rs.get("b"))
	}
	rs.dropIf(func(r *response) bool { return r == a })
	if rs.get("a") != nil || rs.len() != 1 {
		t.Fatalf("a was dropped but is still there (len %d)", rs.len())
	}
	again := rs.getOrMake("a")
	if again.version <= 3 {
		t.Fatalf("the reused first slot's version is %d, want more than 3", again.version)
	}
	empty := rs.getOrMake("")
	if empty == again || rs.get("") != empty || rs.len() != 3 {
		t.Fatalf("an empty ID must live in the map: len %d", rs.len())
	}
}
