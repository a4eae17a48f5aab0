package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"

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

// Deleting a session leaves none of its keys behind: responses, event
// logs, waits and the waits' entries in the user's index (the contract
// tests the same through the interface).
func TestDeleteSessionRemovesResponseKeys(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		_, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: "s", ResponseID: "resp_1", CreateSession: true, Receipt: []byte(`{}`), Lease: time.Minute,
			Webhook: `{"url":"https://example.com/hook"}`})
		if err != nil {
			t.Fatal(err)
		}
		w := &store.Wait{ID: "w:1", Kind: store.WaitApproval, ResponseID: "resp_1", ExpiresAt: time.Now().Add(time.Hour)}
		if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{"status":"requires_action"}`), Wait: w}); err != nil {
			t.Fatal(err)
		}
		if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{"done":1}`), Events: []store.Event{{Sequence: 0, Type: "x", JSON: []byte(`{}`)}}, Release: true}); err != nil {
			t.Fatal(err)
		}
		// An event log as versions before the sorted set kept it.
		old := s.sessionKeys("u", "s").tag + ":e:resp_1"
		if err := s.rdb.XAdd(ctx, &redis.XAddArgs{Stream: old, ID: "0-1", Values: []any{"f", 0}}).Err(); err != nil {
			t.Fatal(err)
		}
		// A session made by its only step (commitNewSession).
		if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s2", ResponseID: "resp_2", Receipt: []byte(`{"done":1}`),
			Events: []store.Event{{Sequence: 0, Type: "x", JSON: []byte(`{}`)}}, Messages: [][]byte{[]byte(`{}`)},
			StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`1`)}, Release: true, CreateSession: true}); err != nil {
			t.Fatal(err)
		}
		for _, session := range []string{"s", "s2"} {
			if found, err := s.DeleteSession(ctx, "u", session); !found || err != nil {
				t.Fatal(session, found, err)
			}
		}
		keys, err := s.rdb.Keys(ctx, s.prefix+"*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k != s.runsKey() {
				t.Errorf("key %q left after deleting the session", k)
			}
		}
	})
}

// IDs are escaped so that none can name another user's or session's keys
// (the contract tests the same through the interface).
func TestEscapeID(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "a:b": "a%3Ab", "{u}": "%7Bu%7D", "50%": "50%25"} {
		if got := escapeID(in); got != want {
			t.Errorf("escapeID(%q) = %q, want %q", in, got, want)
		}
	}
	s := &Store{prefix: "p:"}
	if a, b := s.sessionKeys("a", "b:c").tag, s.sessionKeys("a:b", "c").tag; a == b {
		t.Fatalf("two sessions share the tag %q", a)
	}
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

// A damaged secret key is an error that says what to do, never a weak key.
func TestDamagedSecretSaysWhatToDo(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.Client().Set(ctx, s.prefix+"secret:bad", "abc", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SharedSecret(ctx, "bad"); err == nil || !strings.Contains(err.Error(), "delete the key") {
			t.Fatalf("damaged secret: %v", err)
		}
	})
}
