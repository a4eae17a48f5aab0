package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/harnest/harnest/store"
)

// testEvents is the contract of a response's event log: appended in
// batches, read after any held sequence, bounded at store.MaxEvents, and
// ErrEventsTrimmed (never a silent gap) for a position no longer held.
func testEvents(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"AppendAndRead":          eventsAppendAndRead,
		"LimitCountsEvents":      eventsLimitCountsEvents,
		"RepeatedEventsReadOnce": eventsRepeatedReadOnce,
		"Bounded":                eventsBounded,
		"GapIsTrimmed":           eventsGapIsTrimmed,
		"PerResponse":            eventsPerResponse,
	})
}

func eventsAppendAndRead(t *testing.T, s store.Store) {
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); err != nil || len(got) != 0 {
		t.Fatalf("events of a response without a log: %v %v", got, err)
	}
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, nil); err != nil {
		t.Fatalf("append of no events: %v", err)
	}
	for seq := 0; seq < 6; seq++ { // one event per batch: limits count alike everywhere
		if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(seq, seq)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 100)
	if err != nil || !slices.Equal(sequences(got), []int{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("all events: %v %v", sequences(got), err)
	}
	if got[3].Type != "response.text.delta" || string(got[3].JSON) != `{"sequence":3}` {
		t.Fatalf("event kept inexactly: %+v", got[3])
	}
	got, _ = s.EventsAfter(ctx, "u", "s", "resp_1", 2, 2)
	if !slices.Equal(sequences(got), []int{3, 4}) {
		t.Fatalf("2 after 2: %v", sequences(got))
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", 5, 10); err != nil || len(got) != 0 {
		t.Fatalf("after the last: %v %v", sequences(got), err)
	}
	// Batches of several events read in order, from inside a batch too.
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(6, 9)); err != nil {
		t.Fatal(err)
	}
	got, _ = s.EventsAfter(ctx, "u", "s", "resp_1", 7, 10)
	if !slices.Equal(sequences(got), []int{8, 9}) {
		t.Fatalf("after 7, inside a batch: %v", sequences(got))
	}
}

// EventsAfter's limit counts events, whatever batches they were logged
// in; a limit below 1 reads every event held.
func eventsLimitCountsEvents(t *testing.T, s store.Store) {
	for _, batch := range [][2]int{{0, 4}, {5, 9}, {10, 10}, {11, 30}} {
		if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(batch[0], batch[1])); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ after, limit, first, n int }{
		{-1, 3, 0, 3},    // inside the first batch
		{-1, 5, 0, 5},    // one whole batch
		{-1, 7, 0, 7},    // into the second
		{1, 10, 2, 10},   // from inside one batch to inside another
		{4, 6, 5, 6},     // two whole batches
		{9, 1, 10, 1},    // a batch of one
		{10, 3, 11, 3},   // the start of a long batch
		{-1, 100, 0, 31}, // more than there are
		{-1, 0, 0, 31},   // no limit
		{25, -1, 26, 5},  // no limit, from inside a batch
		{30, 5, 0, 0},    // after the last
	} {
		got, err := s.EventsAfter(ctx, "u", "s", "resp_1", c.after, c.limit)
		if err != nil || len(got) != c.n || c.n > 0 && (got[0].Sequence != c.first || got[c.n-1].Sequence != c.first+c.n-1) {
			t.Fatalf("%d after %d: %v %v, want %d from %d", c.limit, c.after, sequences(got), err, c.n, c.first)
		}
	}
	// Repeated events count once toward the limit.
	if err := s.AppendEvents(ctx, "u", "s", "resp_2", 1, evs(0, 3)); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvents(ctx, "u", "s", "resp_2", 1, evs(2, 6)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_2", 2, 3); err != nil || !slices.Equal(sequences(got), []int{3, 4, 5}) {
		t.Fatalf("3 after 2 across a repeated batch: %v %v, want [3 4 5]", sequences(got), err)
	}
	// Across a gap the limit still counts events.
	if err := s.AppendEvents(ctx, "u", "s", "resp_3", 1, evs(0, 1)); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int{5, 6, 7} {
		if err := s.AppendEvents(ctx, "u", "s", "resp_3", 1, evs(seq, seq)); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_3", -1, 4); err != nil || !slices.Equal(sequences(got), []int{0, 1, 5, 6}) {
		t.Fatalf("4 from the start across a gap: %v %v, want [0 1 5 6]", sequences(got), err)
	}
}

// Events written again (a flush whose answer was lost is retried with the
// next batch) are read once each.
func eventsRepeatedReadOnce(t *testing.T, s store.Store) {
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(0, 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(0, 2)); err != nil {
		t.Fatal(err)
	}
	got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10)
	if err != nil || !slices.Equal(sequences(got), []int{0, 1, 2}) {
		t.Fatalf("events %v, %v; want [0 1 2]", sequences(got), err)
	}
	if got, _ := s.EventsAfter(ctx, "u", "s", "resp_1", 0, 10); !slices.Equal(sequences(got), []int{1, 2}) {
		t.Fatalf("after 0: %v", sequences(got))
	}
}

// The log keeps the last MaxEvents events (give or take the batch that
// holds the oldest of them); reading from before them is refused.
func eventsBounded(t *testing.T, s store.Store) {
	const total, batch = store.MaxEvents + 1500, 1000
	for start := 0; start < total; start += batch {
		if err := s.AppendEvents(ctx, "u", "s", "resp_big", 1, evs(start, min(start+batch, total)-1)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.EventsAfter(ctx, "u", "s", "resp_big", -1, 10); !errors.Is(err, store.ErrEventsTrimmed) {
		t.Fatalf("reading from the start of a trimmed log: %v, want ErrEventsTrimmed", err)
	}
	tail, err := s.EventsAfter(ctx, "u", "s", "resp_big", total-6, 10)
	if err != nil || !slices.Equal(sequences(tail), []int{total - 5, total - 4, total - 3, total - 2, total - 1}) {
		t.Fatalf("tail %v, %v", sequences(tail), err)
	}
	// The last MaxEvents are all held.
	held, err := s.EventsAfter(ctx, "u", "s", "resp_big", total-store.MaxEvents-1, total)
	if err != nil || len(held) != store.MaxEvents || held[0].Sequence != total-store.MaxEvents {
		t.Fatalf("the last %d events: %d held from %v, %v", store.MaxEvents, len(held), sequences(held[:min(1, len(held))]), err)
	}
	// Whole batches are trimmed: the oldest held batch starts at 1000.
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_big", 999, total); err != nil || len(got) != total-1000 {
		t.Fatalf("from the oldest held batch: %d events, %v", len(got), err)
	}
	if _, err := s.EventsAfter(ctx, "u", "s", "resp_big", 998, 10); !errors.Is(err, store.ErrEventsTrimmed) {
		t.Fatalf("from just before the oldest held batch: %v, want ErrEventsTrimmed", err)
	}
}

// A position followed by a gap in the log is no longer held: the reader
// is told, never handed events with a hole before them.
func eventsGapIsTrimmed(t *testing.T, s store.Store) {
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(0, 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(5, 6)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); err != nil || !slices.Equal(sequences(got), []int{0, 1, 5, 6}) {
		t.Fatalf("from the start: %v %v", sequences(got), err)
	}
	if _, err := s.EventsAfter(ctx, "u", "s", "resp_1", 1, 10); !errors.Is(err, store.ErrEventsTrimmed) {
		t.Fatalf("after 1, before a gap: %v, want ErrEventsTrimmed", err)
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", 4, 10); err != nil || !slices.Equal(sequences(got), []int{5, 6}) {
		t.Fatalf("after 4: %v %v", sequences(got), err)
	}
}

func eventsPerResponse(t *testing.T, s store.Store) {
	if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, evs(0, 2)); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][3]string{{"v", "s", "resp_1"}, {"u", "s2", "resp_1"}, {"u", "s", "resp_2"}} {
		if got, err := s.EventsAfter(ctx, c[0], c[1], c[2], -1, 10); err != nil || len(got) != 0 {
			t.Fatalf("%v reads the events of u/s/resp_1: %v %v", c, sequences(got), err)
		}
	}
}
