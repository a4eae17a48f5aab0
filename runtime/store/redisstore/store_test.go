package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/runtime/store"

	"github.com/harnest/harnest/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// eachStore runs a test against the embedded store and a real redis-server.
func eachStore(t *testing.T, fn func(t *testing.T, s *Store)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			s, err := Open(context.Background(), Options{URL: c.URL, KeyPrefix: testutil.Prefix(t)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			fn(t, s)
		})
	}
}

func TestSessionLifecycle(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		state := map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`{"x":[]}`)}
		if err := s.CreateSession(ctx, "u1", "s1", state, "t0"); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateSession(ctx, "u1", "s1", nil, "t0"); !errors.Is(err, store.ErrSessionExists) {
			t.Fatalf("second create: %v, want ErrSessionExists", err)
		}
		// Another user may own the same ID.
		if err := s.CreateSession(ctx, "u2", "s1", nil, "t0"); err != nil {
			t.Fatal(err)
		}
		got, found, err := s.GetSession(ctx, "u1", "s1")
		if err != nil || !found {
			t.Fatalf("get: %v %v", found, err)
		}
		if string(got.State["b"]) != `{"x":[]}` || got.CreatedAt != "t0" {
			t.Fatalf("state not kept exactly: %+v", got)
		}
		got, found, err = s.PatchState(ctx, "u1", "s1", map[string]json.RawMessage{"b": json.RawMessage(`2`), "c": json.RawMessage(`null`)}, "t1")
		if err != nil || !found {
			t.Fatal(found, err)
		}
		if string(got.State["a"]) != "1" || string(got.State["b"]) != "2" || string(got.State["c"]) != "null" || got.UpdatedAt != "t1" {
			t.Fatalf("shallow merge: %+v", got)
		}
		if _, found, _ := s.PatchState(ctx, "u3", "s1", nil, "t1"); found {
			t.Fatal("patch of another user's session found it")
		}
		if found, err := s.DeleteSession(ctx, "u1", "s1"); !found || err != nil {
			t.Fatal(found, err)
		}
		if _, found, _ := s.GetSession(ctx, "u1", "s1"); found {
			t.Fatal("deleted session still readable")
		}
		if _, found, _ := s.GetSession(ctx, "u2", "s1"); !found {
			t.Fatal("deleting u1's session removed u2's")
		}
	})
}

func TestIDsCannotForgeKeys(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.CreateSession(ctx, "a", "b:c", nil, "t"); err != nil {
			t.Fatal(err)
		}
		// "a:b" + "c" would collide with "a" + "b:c" without escaping.
		if _, found, _ := s.GetSession(ctx, "a:b", "c"); found {
			t.Fatal("user a:b sees session c of user a")
		}
		if _, found, _ := s.GetSession(ctx, "a}", "b:c"); found {
			t.Fatal("brace in a user ID reached another user's keys")
		}
	})
}

func TestListSessionsKeyset(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for i := 0; i < 25; i++ {
			if err := s.CreateSession(ctx, "u", fmt.Sprintf("s%02d", i), nil, "t"); err != nil {
				t.Fatal(err)
			}
		}
		_ = s.CreateSession(ctx, "other", "zzz", nil, "t")
		var ids []string
		after := ""
		for page := 0; page < 10; page++ {
			rows, err := s.ListSessions(ctx, "u", after, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
			if len(rows) < 10 {
				break
			}
			after = rows[len(rows)-1].ID
		}
		if len(ids) != 25 || ids[0] != "s00" || ids[24] != "s24" {
			t.Fatalf("listed %v", ids)
		}
	})
}

func TestResponseBeginCommit(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		b := store.Begin{User: "u", Session: "s", ResponseID: "resp_1", CreateSession: true,
			Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute, Now: "t"}
		state, err := s.BeginResponse(ctx, b)
		if err != nil || len(state) != 0 {
			t.Fatal(state, err)
		}
		// The session is held: a second response and a delete are refused.
		b2 := store.Begin{User: "u", Session: "s", ResponseID: "resp_2", Receipt: []byte(`{}`), Lease: time.Minute, Now: "t"}
		if _, err := s.BeginResponse(ctx, b2); !errors.Is(err, store.ErrSessionBusy) {
			t.Fatalf("second begin: %v", err)
		}
		if _, err := s.DeleteSession(ctx, "u", "s"); !errors.Is(err, store.ErrSessionBusy) {
			t.Fatalf("delete while held: %v", err)
		}
		if _, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: "nope", ResponseID: "r", Receipt: []byte(`{}`), Lease: time.Minute}); !errors.Is(err, store.ErrSessionNotFound) {
			t.Fatalf("unknown session: %v", err)
		}
		got, found, _ := s.Receipt(ctx, "u", "s", "resp_1")
		if !found || string(got) != `{"status":"in_progress"}` {
			t.Fatalf("in_progress receipt: %s", got)
		}
		err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1",
			Receipt: []byte(`{"status":"completed"}`), Events: []store.Event{{Sequence: 0, Type: "a", JSON: []byte(`{"sequence":0}`)}, {Sequence: 1, Type: "b", JSON: []byte(`{"sequence":1}`)}},
			Messages:   [][]byte{[]byte(`{"id":"m1"}`), []byte(`{"id":"m2"}`)},
			StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}, Release: true, Now: "t2"})
		if err != nil {
			t.Fatal(err)
		}
		got, _, _ = s.Receipt(ctx, "u", "s", "resp_1")
		if string(got) != `{"status":"completed"}` {
			t.Fatalf("receipt %s", got)
		}
		if _, found, _ := s.Receipt(ctx, "other", "s", "resp_1"); found {
			t.Fatal("another user read the receipt")
		}
		evs, _ := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10)
		if len(evs) != 2 || evs[1].Sequence != 1 || evs[1].Type != "b" || string(evs[1].JSON) != `{"sequence":1}` {
			t.Fatalf("events %+v", evs)
		}
		if evs, _ := s.EventsAfter(ctx, "u", "s", "resp_1", 0, 10); len(evs) != 1 || evs[0].Sequence != 1 {
			t.Fatalf("events after 0: %+v", evs)
		}
		msgs, _ := s.Messages(ctx, "u", "s", 0, 10)
		if len(msgs) != 2 || msgs[1].Offset != 1 || string(msgs[1].JSON) != `{"id":"m2"}` {
			t.Fatalf("messages %+v", msgs)
		}
		last, _ := s.LastMessages(ctx, "u", "s", 1)
		if len(last) != 1 || string(last[0].JSON) != `{"id":"m2"}` {
			t.Fatalf("last %+v", last)
		}
		sess, _, _ := s.GetSession(ctx, "u", "s")
		if string(sess.State["k"]) != `"v"` {
			t.Fatalf("state delta not merged: %+v", sess.State)
		}
		// Released: a new response may start; a stale commit is refused.
		if _, err := s.BeginResponse(ctx, b2); err != nil {
			t.Fatal(err)
		}
		err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{}`), Release: true})
		if !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("stale commit: %v", err)
		}
		if ok, _ := s.RenewLease(ctx, "u", "s", "resp_2", "", time.Minute); !ok {
			t.Fatal("holder could not renew")
		}
		if ok, _ := s.RenewLease(ctx, "u", "s", "resp_1", "", time.Minute); ok {
			t.Fatal("non-holder renewed")
		}
	})
}

func TestDeleteSessionRemovesResponses(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		_, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: "s", ResponseID: "resp_1", CreateSession: true, Receipt: []byte(`{}`), Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{"done":1}`), Events: []store.Event{{Sequence: 0, Type: "x", JSON: []byte(`{}`)}}, Release: true}); err != nil {
			t.Fatal(err)
		}
		if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
			t.Fatal(found, err)
		}
		if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); found {
			t.Fatal("receipt survived its session")
		}
		if n, _ := s.Client().Exists(ctx, s.sessionKeys("u", "s").events("resp_1")).Result(); n != 0 {
			t.Fatal("event log survived its session")
		}
		rows, _ := s.ListSessions(ctx, "u", "", 10)
		if len(rows) != 0 {
			t.Fatal("deleted session still listed")
		}
	})
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"redis://user:secret@127.0.0.1:6379/0": "redis://127.0.0.1:6379/0",
		"rediss://:pw@host:6380":               "rediss://host:6380",
		"unix:///tmp/redis.sock":               "unix:/tmp/redis.sock",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func newTestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// A refused commit must not leave an armed WATCH on a pooled connection:
// later transactions on that connection would fail for no reason.
func TestRefusedCommitLeavesNoWatch(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		begin := func(sid, rid string) {
			if _, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: sid, ResponseID: rid, CreateSession: true, Receipt: []byte(`{}`), Lease: time.Minute}); err != nil {
				t.Fatal(err)
			}
		}
		begin("held", "resp_holder")
		for i := 0; i < 5; i++ {
			err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "held", ResponseID: "resp_intruder", Receipt: []byte(`{}`), Release: true})
			if !errors.Is(err, store.ErrLeaseLost) {
				t.Fatalf("intruder commit: %v", err)
			}
		}
		// Change the watched key from another connection while the
		// intruder's connection sits in the pool, then run transactions:
		// none may fail with an abort caused by a leftover WATCH.
		held := s.rdb.(*redis.Client).Conn() // takes the most recently used connection
		if err := s.rdb.Set(ctx, s.sessionKeys("u", "held").lease, "resp_other", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		held.Close()
		for i := 0; i < 20; i++ {
			sid, rid := fmt.Sprintf("s%d", i), fmt.Sprintf("resp_%d", i)
			begin(sid, rid)
			if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: sid, ResponseID: rid, Receipt: []byte(`{}`), Release: true}); err != nil {
				t.Fatalf("commit %d after refused commits: %v", i, err)
			}
		}
	})
}

// The event log is bounded: asking for a position that was trimmed away is
// an error, not a silent gap.
func TestEventLogIsBounded(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		const total = store.MaxEvents + 1500
		for start := 0; start < total; start += 1000 {
			var batch []store.Event
			for i := start; i < start+1000 && i < total; i++ {
				batch = append(batch, store.Event{Sequence: i, Type: "response.text.delta", JSON: []byte(`{}`)})
			}
			if err := s.AppendEvents(ctx, "u", "s", "resp_big", batch); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.EventsAfter(ctx, "u", "s", "resp_big", -1, 10); !errors.Is(err, store.ErrEventsTrimmed) {
			t.Fatalf("reading from the start of a trimmed log: %v, want ErrEventsTrimmed", err)
		}
		tail, err := s.EventsAfter(ctx, "u", "s", "resp_big", total-6, 10)
		if err != nil || len(tail) != 5 || tail[4].Sequence != total-1 {
			t.Fatalf("tail %+v, %v", tail, err)
		}
		// The log keeps the last MaxEvents events, give or take one batch.
		first, err := s.Client().XRangeN(ctx, s.sessionKeys("u", "s").events("resp_big"), "-", "+", 1).Result()
		if err != nil || len(first) != 1 {
			t.Fatal(first, err)
		}
		held, _ := s.EventsAfter(ctx, "u", "s", "resp_big", mustAtoi(t, first[0].Values["f"])-1, 100)
		if n := len(held); n < store.MaxEvents || n > store.MaxEvents+1000 {
			t.Fatalf("log holds %d events, bound %d (+ one batch)", n, store.MaxEvents)
		}
	})
}

func mustAtoi(t *testing.T, v any) int {
	t.Helper()
	n, err := strconv.Atoi(fmt.Sprint(v))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
