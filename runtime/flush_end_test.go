package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
)

// A flush that fires after a segment's last event was emitted writes the
// events before it only: response.completed (or error) reaches the log in
// the step that writes the receipt it ends with, so a follower that finds
// it reads that receipt (NextBoundary answered with the receipt of the
// suspension once in about 40 runs of TestEditAnswerOfALostReplica).
func TestFlushLeavesTheSegmentsEndToItsStep(t *testing.T) {
	ctx := context.Background()
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() })
	s := New(Options{Store: st, Agent: AgentFunc(func(context.Context, *Turn, Emit) error { return nil })})
	if _, err := st.BeginResponse(ctx, store.Begin{User: "u", Session: "s1", ResponseID: "resp_1", CreateSession: true,
		Receipt: []byte(`{"id":"resp_1","status":"in_progress"}`), Lease: time.Minute, Replica: s.replica, Now: "t0"}); err != nil {
		t.Fatal(err)
	}
	r := &Response{ID: "resp_1", SessionID: "s1", svc: s, epoch: 1, ctx: ctx}
	r.turn.UserID = "u"
	r.inStore.Store(true)
	for _, end := range []string{EventCompleted, EventError} {
		before, _ := st.EventsAfter(ctx, "u", "s1", "resp_1", -1, 0)
		next := len(before)
		r.pending = []store.Event{
			{Sequence: next, Type: EventTextDelta, JSON: []byte(`{}`)},
			{Sequence: next + 1, Type: end, JSON: []byte(`{}`)},
		}
		r.flush()
		logged, err := st.EventsAfter(ctx, "u", "s1", "resp_1", -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(logged) != next+1 || logged[next].Type != EventTextDelta {
			t.Fatalf("%s: the flush logged %+v, want the delta and not the segment's end", end, logged[next:])
		}
		if left := r.takePending(false); len(left) != 1 || left[0].Type != end {
			t.Fatalf("%s: left for the step: %+v", end, left)
		}
	}
}
