package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// events makes the events from sequence first to last.
func events(first, last int) []store.Event {
	out := make([]store.Event, 0, last-first+1)
	for seq := first; seq <= last; seq++ {
		out = append(out, store.Event{Sequence: seq, Type: "x", JSON: []byte(`{}`)})
	}
	return out
}

// beginNew begins resp_1 in a new session s of user u.
func beginNew(t *testing.T, s *Store) {
	t.Helper()
	b := store.Begin{User: "u", Session: "s", ResponseID: "resp_1", CreateSession: true, Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute}
	if _, err := s.BeginResponse(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

// The commit script trims the event log to about MaxEvents, as
// AppendEvents does (the contract only tests the latter).
func TestCommitTrimsTheEventLog(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		beginNew(t, s)
		// A first entry of 10 events, then the rest of MaxEvents in
		// entries of 1,000.
		if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, events(0, 9)); err != nil {
			t.Fatal(err)
		}
		for first := 10; first < store.MaxEvents; first += 1000 {
			if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, events(first, min(first+999, store.MaxEvents-1))); err != nil {
				t.Fatal(err)
			}
		}
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1",
			Receipt: []byte(`{"status":"completed"}`), Events: events(store.MaxEvents, store.MaxEvents+9), Release: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 5); !errors.Is(err, store.ErrEventsTrimmed) {
			t.Fatalf("reading the first entry, which the commit trimmed: %v, want ErrEventsTrimmed", err)
		}
		held, err := s.EventsAfter(ctx, "u", "s", "resp_1", 9, 2)
		if err != nil || len(held) != 2 || held[0].Sequence != 10 {
			t.Fatalf("events after 9: %v, %v", held, err)
		}
	})
}

// A commit whose batch the log is already past (its answer was lost after
// an earlier write, and it is sent again) writes the whole step, and
// readers see each event once, in order.
func TestCommitOfABatchTheLogIsPast(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		beginNew(t, s)
		if err := s.AppendEvents(ctx, "u", "s", "resp_1", 1, events(0, 5)); err != nil {
			t.Fatal(err)
		}
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1",
			Receipt: []byte(`{"status":"completed"}`), Events: events(3, 4), Messages: [][]byte{[]byte(`{"m":1}`)}, Release: true})
		if err != nil {
			t.Fatalf("commit of a batch the log is past: %v", err)
		}
		for _, after := range []int{-1, 2} {
			got, err := s.EventsAfter(ctx, "u", "s", "resp_1", after, 0)
			if err != nil || len(got) != 5-after {
				t.Fatalf("events after %d: %v %v, want %d", after, got, err, 5-after)
			}
			for i, e := range got {
				if e.Sequence != after+1+i {
					t.Fatalf("events after %d: %v, want each sequence once, in order", after, got)
				}
			}
		}
		receipt, found, err := s.Receipt(ctx, "u", "s", "resp_1")
		if err != nil || !found || string(receipt) != `{"status":"completed"}` {
			t.Fatalf("receipt %s %v %v", receipt, found, err)
		}
		msgs, err := s.Messages(ctx, "u", "s", 0, 10)
		if err != nil || len(msgs) != 1 || msgs[0].Offset != 0 {
			t.Fatalf("transcript %v %v", msgs, err)
		}
		if held, err := s.rdb.Exists(ctx, s.sessionKeys("u", "s").lease).Result(); err != nil || held != 0 {
			t.Fatalf("the lease is still held (%d, %v)", held, err)
		}
	})
}

// A step with more messages and state fields than one command of the
// script takes (it sends them in chunks) writes them all, at their
// offsets.
func TestCommitOfALargeStep(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		beginNew(t, s)
		const messages, fields = 250, 150
		c := store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{"status":"completed"}`),
			StateDelta: map[string]json.RawMessage{}, Release: true, Now: "t2"}
		for i := range messages {
			c.Messages = append(c.Messages, []byte(fmt.Sprintf(`{"n":%d}`, i)))
		}
		for i := range fields {
			c.StateDelta[fmt.Sprintf("k%d", i)] = json.RawMessage(strconv.Itoa(i))
		}
		if err := s.CommitResponse(ctx, c); err != nil {
			t.Fatal(err)
		}
		msgs, err := s.Messages(ctx, "u", "s", 0, 1000)
		if err != nil || len(msgs) != messages {
			t.Fatalf("%d messages (%v), want %d", len(msgs), err, messages)
		}
		for i, m := range msgs {
			if m.Offset != int64(i) || string(m.JSON) != fmt.Sprintf(`{"n":%d}`, i) {
				t.Fatalf("message %d: offset %d, %s", i, m.Offset, m.JSON)
			}
		}
		sess, found, err := s.GetSession(ctx, "u", "s")
		if err != nil || !found || len(sess.State) != fields || string(sess.State["k149"]) != "149" || sess.UpdatedAt != "t2" {
			t.Fatalf("session %+v %v %v", sess, found, err)
		}
	})
}

// The one step of a new session's turn keeps its event log as one plain
// string (events.go), with the receipt's TTL; the contract reads it
// (storetest, ItsLogReadsFromAnyPosition).
func TestNewSessionLogIsOneString(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1",
			Receipt: []byte(`{"status":"completed"}`), Events: events(0, 2), Release: true, CreateSession: true, Now: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		log := s.sessionKeys("u", "s").events("resp_1")
		if kind, err := s.rdb.Type(ctx, log).Result(); err != nil || kind != "string" {
			t.Fatalf("the log is a %q (%v), want a string", kind, err)
		}
		if ttl, err := s.rdb.PTTL(ctx, log).Result(); err != nil || ttl <= 0 || ttl > s.receiptTTL {
			t.Fatalf("the log's TTL is %v (%v), want at most %v", ttl, err, s.receiptTTL)
		}
	})
}

// A session's responses are fields of its meta; a session made before
// kept them in a set of their own, and deleting it still deletes them.
func TestDeleteSessionOfTheOlderForm(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		beginNew(t, s)
		finish := store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{"status":"completed"}`),
			Events: events(0, 1), Release: true, Now: "t2"}
		if err := s.CommitResponse(ctx, finish); err != nil {
			t.Fatal(err)
		}
		k := s.sessionKeys("u", "s")
		if has, err := s.rdb.HExists(ctx, k.meta, responseField("resp_1")).Result(); err != nil || !has {
			t.Fatalf("the response is not a field of its session's meta (%v, %v)", has, err)
		}
		// An older response: in the set, not in the meta.
		if err := s.rdb.SAdd(ctx, k.responses, "resp_0").Err(); err != nil {
			t.Fatal(err)
		}
		if err := s.rdb.Set(ctx, k.receipt("resp_0"), `{"status":"completed"}`, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
		if found, err := s.DeleteSession(ctx, "u", "s"); err != nil || !found {
			t.Fatalf("delete: %v %v", found, err)
		}
		left, err := s.rdb.Exists(ctx, k.receipt("resp_0"), k.receipt("resp_1"), k.events("resp_1"), k.responses, k.meta).Result()
		if err != nil || left != 0 {
			t.Fatalf("%d keys of the session left (%v)", left, err)
		}
	})
}
