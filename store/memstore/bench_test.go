package memstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/storetest"
)

// BenchmarkTurn is the store's share of one response (storetest.BenchTurn).
func BenchmarkTurn(b *testing.B) {
	s := New(Options{})
	defer s.Close()
	storetest.BenchTurn(b, s)
}

// BenchmarkFollowUpTurn is BenchmarkTurn in sessions that exist: each
// goroutine runs turn after turn in its own session.
func BenchmarkFollowUpTurn(b *testing.B) {
	s := New(Options{})
	defer s.Close()
	ctx := context.Background()
	events := []store.Event{
		{Sequence: 0, Type: "response.created", JSON: []byte(`{"type":"response.created","sequence":0}`)},
		{Sequence: 1, Type: "response.completed", JSON: []byte(`{"type":"response.completed","sequence":1}`)},
	}
	msgs := [][]byte{[]byte(`{"id":"m1","role":"user","content":"hello"}`), []byte(`{"id":"m2","role":"assistant","content":"Echo: hello"}`)}
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		sid := newTestID()
		if err := s.CreateSession(ctx, "u", sid, nil, "t"); err != nil {
			b.Fatal(err)
		}
		for pb.Next() {
			rid := "resp_" + newTestID()
			if _, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: sid, ResponseID: rid, Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute, Now: "t"}); err != nil {
				b.Fatal(err)
			}
			if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: sid, ResponseID: rid, Receipt: []byte(`{"status":"completed"}`), Events: events, Messages: msgs, Release: true, Now: "t"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadTurn measures what a reader of a finished turn costs: its
// receipt, its events and the transcript's last messages.
func BenchmarkReadTurn(b *testing.B) {
	s := New(Options{})
	defer s.Close()
	ctx := context.Background()
	if _, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: "s", ResponseID: "r", CreateSession: true, Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute}); err != nil {
		b.Fatal(err)
	}
	events := []store.Event{{Sequence: 0, Type: "a", JSON: []byte(`{}`)}, {Sequence: 1, Type: "b", JSON: []byte(`{}`)}}
	if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "r", Receipt: []byte(`{"status":"completed"}`), Events: events, Messages: [][]byte{[]byte(`{}`), []byte(`{}`)}, Release: true}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok, _ := s.Receipt(ctx, "u", "s", "r"); !ok {
				b.Fatal("no receipt")
			}
			if ev, _ := s.EventsAfter(ctx, "u", "s", "r", -1, 500); len(ev) != 2 {
				b.Fatal("events")
			}
			if m, _ := s.LastMessages(ctx, "u", "s", 20); len(m) != 2 {
				b.Fatal("messages")
			}
		}
	})
}

func newTestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// BenchmarkSessionIndexInsert measures putting new sessions into one
// user's index when it already holds 100,000 (random IDs, as the runtime
// makes them): the B-tree insert of every new session.
func BenchmarkSessionIndexInsert(b *testing.B) {
	var x userIndex
	for i := range x.shards {
		x.shards[i].users = map[string]*userData{}
	}
	for range 100_000 {
		x.addSession("u", newTestID())
	}
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = newTestID()
	}
	b.ResetTimer()
	for _, id := range ids {
		x.addSession("u", id)
	}
}

// BenchmarkJournalStep is the store's share of one step of a turn with a
// resume point and without (storetest.BenchJournalStep).
func BenchmarkJournalStep(b *testing.B) {
	for _, point := range []bool{false, true} {
		b.Run("point="+strconv.FormatBool(point), func(b *testing.B) {
			s := New(Options{})
			defer s.Close()
			storetest.BenchJournalStep(b, s, point)
		})
	}
}
