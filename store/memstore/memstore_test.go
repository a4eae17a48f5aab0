package memstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/storetest"
)

// TestContract runs the store contract on the in-process store.
func TestContract(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Open: func(t testing.TB, receiptTTL time.Duration) store.Store {
			s := New(Options{ReceiptTTL: receiptTTL})
			t.Cleanup(func() { s.Close() })
			return s
		},
		Elapse: time.Sleep,
	})
}

// TestContractWithCollidingHashes runs the contract with every session's
// hash the same: all but the first space of a shard are found through its
// clash map, as sessions whose IDs were chosen to collide would be.
func TestContractWithCollidingHashes(t *testing.T) {
	defer collideEveryHash(t)()
	TestContract(t)
	TestSpaceTableFollowsTheShards(t)
}

// collideEveryHash makes every key's hash the same until the returned
// function is called. Not for parallel tests: spaceHash is the package's.
func collideEveryHash(t *testing.T) (restore func()) {
	t.Helper()
	was := spaceHash
	spaceHash = func(spaceKey) uint64 { return 42 }
	return func() { spaceHash = was }
}

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

func newClocked(t *testing.T, ttl time.Duration) (*Store, *fakeClock) {
	clock := &fakeClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := New(Options{ReceiptTTL: ttl, Now: clock.Now})
	t.Cleanup(func() { s.Close() })
	return s, clock
}

// counts tallies what the shards and the users' index hold.
type counts struct{ spaces, responses, waits, leases, users, userWaits int }

func (s *Store) counts() counts {
	var c counts
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for _, i := range append(slices.Collect(maps.Values(sh.spaces)), slices.Collect(maps.Values(sh.clash))...) {
			sp := s.spaces.at(i)
			c.spaces++
			c.responses += sp.responses.len()
			c.waits += len(sp.waits)
			if sp.lease.holder != "" {
				c.leases++
			}
		}
		sh.mu.Unlock()
	}
	for i := range s.users.shards {
		us := &s.users.shards[i]
		us.mu.Lock()
		c.users += len(us.users)
		for _, u := range us.users {
			c.userWaits += len(u.waits)
		}
		us.mu.Unlock()
	}
	return c
}

// tableSpaces counts the spaces the space table holds.
func (s *Store) tableSpaces() int {
	s.spaces.mu.Lock()
	defer s.spaces.mu.Unlock()
	n := 0
	if p := s.spaces.chunks.Load(); p != nil {
		for _, chunk := range *p {
			for _, sp := range chunk {
				if sp != nil {
					n++
				}
			}
		}
	}
	return n
}

// The expiry pass returns the memory of what expired: receipts, event
// logs, leases and waits go, and so do spaces left with nothing; sessions
// stay.
func TestExpiryPassDropsWhatExpired(t *testing.T) {
	s, clock := newClocked(t, time.Hour)
	seedExpiring(t, s, clock)
	s.expire(clock.Add(2 * time.Minute)) // the leases lapsed
	if c := s.counts(); c.leases != 0 || c.responses != 4 {
		t.Fatalf("after the leases: %+v", c)
	}
	s.expire(clock.Add(time.Hour)) // receipts, logs and waits (15 min + the tombstone) expired
	checkSeedExpired(t, s)
}

// seedExpiring stores three sessions of user u, each with a response, its
// events and a wait of 15 minutes (two of them still holding their
// lease), and events of a response of user v with no session.
func seedExpiring(t *testing.T, s *Store, clock *fakeClock) {
	t.Helper()
	ctx := context.Background()
	for i, sid := range []string{"s1", "s2", "s3"} {
		rid := "resp_" + sid
		b := store.Begin{User: "u", Session: sid, ResponseID: rid, CreateSession: true,
			Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute, Replica: "r1"}
		if _, err := s.BeginResponse(ctx, b); err != nil {
			t.Fatal(err)
		}
		w := &store.Wait{ID: "w" + sid, Kind: store.WaitApproval, ResponseID: rid, ExpiresAt: clock.Now().Add(15 * time.Minute)}
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: sid, ResponseID: rid,
			Receipt: []byte(`{"status":"requires_action"}`), Events: []store.Event{{Sequence: 0, Type: "x", JSON: []byte(`{}`)}},
			Wait: w, Release: i == 0, Replica: "r1"})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Events without a session: their space goes with them.
	if err := s.AppendEvents(ctx, "v", "loose", "resp_x", 1, []store.Event{{Sequence: 0, Type: "x", JSON: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	if c := s.counts(); c != (counts{spaces: 4, responses: 4, waits: 3, leases: 2, users: 1, userWaits: 3}) {
		t.Fatalf("before: %+v", c)
	}
}

// checkSeedExpired checks that only seedExpiring's three sessions are left,
// with nothing in them, once everything else in it expired.
func checkSeedExpired(t *testing.T, s *Store) {
	t.Helper()
	if c := s.counts(); c != (counts{spaces: 3, users: 1}) {
		t.Fatalf("after the receipt TTL: %+v", c)
	}
	if rows, _ := s.ListSessions(context.Background(), "u", "", 10); len(rows) != 3 {
		t.Fatalf("sessions expired: %+v", rows)
	}
	if n := s.tableSpaces(); n != 3 {
		t.Fatalf("the space table holds %d spaces, the shards 3", n)
	}
}

// The space table holds exactly the shards' spaces: a space dropped by a
// deletion, by the expiry pass or by a begin that finds no session gives
// its slot back, and a freed slot is used again.
func TestSpaceTableFollowsTheShards(t *testing.T) {
	ctx := context.Background()
	s, clock := newClocked(t, time.Hour)
	for i := range 3000 { // past one chunk
		if err := s.CreateSession(ctx, "u", fmt.Sprintf("s%d", i), nil, clock.Now().String()); err != nil {
			t.Fatal(err)
		}
	}
	if n, c := s.tableSpaces(), s.counts(); n != 3000 || c.spaces != 3000 {
		t.Fatalf("after 3000 sessions: the table holds %d spaces, the shards %d", n, c.spaces)
	}
	for i := range 1000 {
		if found, err := s.DeleteSession(ctx, "u", fmt.Sprintf("s%d", i)); err != nil || !found {
			t.Fatalf("delete s%d: %v %v", i, found, err)
		}
	}
	// A begin of an unknown session makes no space.
	b := store.Begin{User: "u", Session: "nope", ResponseID: "r", Receipt: []byte(`{}`), Lease: time.Minute}
	if _, err := s.BeginResponse(ctx, b); !errors.Is(err, store.ErrSessionNotFound) {
		t.Fatalf("begin of an unknown session: %v", err)
	}
	// Events without a session make a space, which expiry drops.
	if err := s.AppendEvents(ctx, "v", "loose", "resp_x", 1, []store.Event{{Sequence: 0, Type: "x", JSON: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	s.expire(clock.Add(2 * time.Hour))
	if n, c := s.tableSpaces(), s.counts(); n != 2000 || c.spaces != 2000 {
		t.Fatalf("after deleting 1000: the table holds %d spaces, the shards %d", n, c.spaces)
	}
	used := s.spaces.used
	for i := range 1001 {
		if err := s.CreateSession(ctx, "u", fmt.Sprintf("t%d", i), nil, clock.Now().String()); err != nil {
			t.Fatal(err)
		}
	}
	if s.spaces.used != used+1 {
		t.Fatalf("1001 new sessions took %d new slots, want 1 (1000 freed ones reused)", s.spaces.used-used)
	}
	for _, id := range []string{"s2999", "t0", "t1000"} {
		if _, found, err := s.GetSession(ctx, "u", id); err != nil || !found {
			t.Fatalf("session %s: found %v, %v", id, found, err)
		}
	}
}

// A resolved wait stays readable for its tombstone minute past its
// expiry, then goes, with its index entry.
func TestWaitTombstone(t *testing.T) {
	ctx := context.Background()
	s, clock := newClocked(t, 0)
	b := store.Begin{User: "u", Session: "s", ResponseID: "r", CreateSession: true, Receipt: []byte(`{}`), Lease: time.Hour}
	if _, err := s.BeginResponse(ctx, b); err != nil {
		t.Fatal(err)
	}
	w := &store.Wait{ID: "w", Kind: store.WaitApproval, ResponseID: "r", ExpiresAt: clock.Now().Add(time.Minute)}
	if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "r", Receipt: []byte(`{}`), Wait: w}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ResolveWait(ctx, "u", "w", store.WaitApproval, store.WaitApproved, nil, clock.Now()); err != nil {
		t.Fatal(err)
	}
	clock.Add(time.Minute + 59*time.Second)
	if got, found, _ := s.GetWait(ctx, "u", "w"); !found || got.Status != store.WaitApproved {
		t.Fatalf("within the tombstone: %+v %v", got, found)
	}
	s.expire(clock.Add(2 * time.Second))
	if _, found, _ := s.GetWait(ctx, "u", "w"); found {
		t.Fatal("a wait outlived its tombstone")
	}
	if c := s.counts(); c.waits != 0 || c.userWaits != 0 {
		t.Fatalf("wait memory kept: %+v", c)
	}
}

// A refused begin in a missing session leaves no space behind.
func TestRefusedBeginLeavesNoSpace(t *testing.T) {
	s, _ := newClocked(t, 0)
	for range 3 {
		b := store.Begin{User: "u", Session: "nope", ResponseID: "r", Receipt: []byte(`{}`), Lease: time.Minute}
		if _, err := s.BeginResponse(context.Background(), b); err == nil {
			t.Fatal("begin in a missing session")
		}
	}
	if c := s.counts(); c != (counts{}) {
		t.Fatalf("left behind: %+v", c)
	}
}

// The store decides a receipt's finality as store.IsFinalReceipt does.
func TestFinalityAgreesWithTheStorePackage(t *testing.T) {
	for _, r := range []string{
		`{"status":"completed"}`, `{"status":"failed"}`, `{"status":"cancelled"}`, `{"status":"denied"}`,
		`{"status":"in_progress"}`, `{"status":"requires_action"}`, `{}`, ``, `not json`, `[]`, `{"status":1}`,
		`{"metadata":{"status":"completed"},"status":"in_progress"}`,
		`{"id":"x","metadata":{"status":"in_progress"},"status":"failed","output":[{"status":"x"}]}`,
		`{"output":["\"status\":\"completed\""],"status":"in_progress"}`,
		`{ "status" : "completed" }`, `{"id":"a\\","status":"denied"}`,
	} {
		if got, want := isFinalReceipt([]byte(r)), store.IsFinalReceipt([]byte(r)); got != want {
			t.Errorf("isFinalReceipt(%s) = %v, store.IsFinalReceipt says %v", r, got, want)
		}
	}
}

// Close stops the expiry pass and the hubs; every operation then fails
// with ErrClosed (the contract tests that calls fail; this, that it is
// ErrClosed).
func TestClose(t *testing.T) {
	ctx := context.Background()
	s := New(Options{})
	if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
		t.Fatal(err)
	}
	hub, err := s.StartHub(ctx, "r1", func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s.Close()
	if err := s.Ping(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("Ping: %v, want ErrClosed", err)
	}
	if _, _, err := s.GetSession(ctx, "u", "s"); !errors.Is(err, ErrClosed) {
		t.Fatalf("GetSession: %v, want ErrClosed", err)
	}
	if err := s.CreateSession(ctx, "u", "s2", nil, "t"); !errors.Is(err, ErrClosed) {
		t.Fatalf("CreateSession: %v, want ErrClosed", err)
	}
	if _, err := s.SendControl(ctx, "r1", "x"); !errors.Is(err, ErrClosed) {
		t.Fatalf("SendControl: %v, want ErrClosed", err)
	}
	if _, _, err := s.GetTask(ctx, "u", "t"); !errors.Is(err, ErrClosed) {
		t.Fatalf("GetTask: %v, want ErrClosed", err)
	}
	if _, _, err := s.ListenRelayFeed(ctx, "o"); !errors.Is(err, ErrClosed) {
		t.Fatalf("ListenRelayFeed: %v, want ErrClosed", err)
	}
	if _, _, err := hub.ListenEvents(ctx, "u", "s", "r"); !errors.Is(err, ErrHubClosed) {
		t.Fatalf("ListenEvents on the closed store's hub: %v, want ErrHubClosed", err)
	}
	if err := hub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartHub(ctx, "r2", func(string) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("StartHub: %v, want ErrClosed", err)
	}
}
