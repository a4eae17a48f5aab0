package memstore

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/harnest/harnest/store"
)

// A response's event log is kept as the Redis store keeps its sorted set
// of batches: each write (a flush, or the commit of a step) adds one batch of
// consecutive events. The log is trimmed by whole batches to the last
// store.MaxEvents events (a batch that holds the oldest of them is kept
// whole), and a reader asking for events before the first held batch is
// told so (ErrEventsTrimmed) exactly as the Redis store tells it.
//
// The events are held in buffers without pointers (their JSON one after
// another in one byte slice, and a slice of small records that say where
// each ends), so that the garbage collector does not look into them, and
// a write of a batch usually costs no allocation at all once the buffers
// have room. An event's type is a number: its number in the process's
// table of event types (eventTypes), or else its index in the log's own
// short table.

// eventLog is a response's bounded event log.
type eventLog struct {
	json   []byte        // the held events' JSON, one after another
	events []loggedEvent // the held events, sequences increasing
	types  []string      // the event types past eventTypes' room the log has seen, each once; nil until one comes
	// trimmed is how many bytes of JSON were dropped from the front by
	// trims: an event's end counts from the log's start, json[0] is at
	// trimmed.
	trimmed int
}

// loggedEvent is one event of the log, without its JSON.
type loggedEvent struct {
	sequence   int
	end        int    // where its JSON ends, counted from the log's start
	typ        uint32 // its type: see typeIndex
	batchStart bool   // the first event of a write (a batch)
}

// held reports whether the log holds anything.
func (l *eventLog) held() bool { return len(l.events) > 0 }

// last returns the sequence of the newest event held (ok false if none).
func (l *eventLog) last() (int, bool) {
	if len(l.events) == 0 {
		return 0, false
	}
	return l.events[len(l.events)-1].sequence, true
}

// add appends a batch: copies of the events whose sequence is after the
// newest held (a batch written again after a write whose answer was lost
// repeats events the log already has). Then it trims the batches that hold
// only events older than the last MaxEvents.
func (l *eventLog) add(events []store.Event) {
	if last, ok := l.last(); ok {
		i := 0
		for i < len(events) && events[i].Sequence <= last {
			i++
		}
		events = events[i:]
	}
	if len(events) == 0 {
		return
	}
	size := 0
	for _, e := range events {
		size += len(e.JSON)
	}
	l.json = slices.Grow(l.json, size)
	l.events = slices.Grow(l.events, len(events))
	for i, e := range events {
		l.json = append(l.json, e.JSON...)
		l.events = append(l.events, loggedEvent{
			sequence: e.Sequence, end: l.trimmed + len(l.json), typ: l.typeIndex(e.Type), batchStart: i == 0,
		})
	}
	l.trim(events[len(events)-1].Sequence + 1 - store.MaxEvents)
}

// eventTypes numbers the event types the logs hold, for the whole
// process, learned as they first arrive: a log keeps a type as its number
// (no pointer in its records, no table of its own for the runtime's
// handful of types). Past maxSharedTypes types, a log keeps the others in
// its own table, so an agent that invents types cannot grow it.
var eventTypes sharedTypes

// maxSharedTypes bounds eventTypes.
const maxSharedTypes = 64

// sharedTypes is a bounded, append-only table of event type names.
type sharedTypes struct {
	numbers sync.Map                 // name -> uint32
	names   atomic.Pointer[[]string] // by number; replaced, never changed
	mu      sync.Mutex               // orders additions
}

// number returns the type's number, adding it while there is room.
func (t *sharedTypes) number(name string) (uint32, bool) {
	if n, ok := t.numbers.Load(name); ok {
		return n.(uint32), true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.numbers.Load(name); ok {
		return n.(uint32), true
	}
	var names []string
	if p := t.names.Load(); p != nil {
		names = *p
	}
	if len(names) == maxSharedTypes {
		return 0, false
	}
	grown := append(names[:len(names):len(names)], name)
	t.names.Store(&grown)
	t.numbers.Store(name, uint32(len(names)))
	return uint32(len(names)), true
}

// name returns the type numbered n.
func (t *sharedTypes) name(n uint32) string { return (*t.names.Load())[n] }

// typeIndex returns the number of an event type: its number in
// eventTypes, or maxSharedTypes plus its index in the log's own table,
// where it is added when it is new.
func (l *eventLog) typeIndex(t string) uint32 {
	if n, ok := eventTypes.number(t); ok {
		return n
	}
	for i, known := range l.types {
		if known == t {
			return uint32(maxSharedTypes + i)
		}
	}
	l.types = append(l.types, t)
	return uint32(maxSharedTypes + len(l.types) - 1)
}

// typeName returns the event type numbered typ by typeIndex.
func (l *eventLog) typeName(typ uint32) string {
	if typ < maxSharedTypes {
		return eventTypes.name(typ)
	}
	return l.types[int(typ)-maxSharedTypes]
}

// trim drops the batches, oldest first, whose events are all older than
// sequence oldest; the newest batch is always kept.
func (l *eventLog) trim(oldest int) {
	if len(l.events) == 0 || l.events[0].sequence >= oldest {
		return // the oldest held event is still wanted: nothing to drop
	}
	cut := 0 // the events to drop: whole batches
	for i := 1; i < len(l.events); i++ {
		if !l.events[i].batchStart {
			continue
		}
		if l.events[i-1].sequence >= oldest {
			break // the batch that ends at i-1 holds a wanted event
		}
		cut = i
	}
	if cut == 0 {
		return
	}
	end := l.events[cut-1].end
	l.json = l.json[end-l.trimmed:]
	l.trimmed = end
	l.events = l.events[cut:]
}

// event returns the i-th held event; its JSON is the stored bytes.
func (l *eventLog) event(i int) store.Event {
	start := l.trimmed
	if i > 0 {
		start = l.events[i-1].end
	}
	e := l.events[i]
	from, to := start-l.trimmed, e.end-l.trimmed
	return store.Event{Sequence: e.sequence, Type: l.typeName(e.typ), JSON: l.json[from:to:to]}
}

// after returns up to limit events with a sequence greater than after
// (limit <= 0: all), or ErrEventsTrimmed when the first of them is no
// longer held although later ones are.
func (l *eventLog) after(after, limit int) ([]store.Event, error) {
	i := sort.Search(len(l.events), func(i int) bool { return l.events[i].sequence > after })
	if i == len(l.events) {
		return nil, nil
	}
	// Events are dropped by whole batches: what was before the first
	// wanted event is gone only when it starts a batch past after+1.
	if l.events[i].batchStart && l.events[i].sequence > after+1 {
		return nil, store.ErrEventsTrimmed
	}
	n := len(l.events) - i
	if limit > 0 {
		n = min(n, limit)
	}
	out := make([]store.Event, n)
	for j := range out {
		out[j] = l.event(i + j)
	}
	return out, nil
}
