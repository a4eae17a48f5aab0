package memstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// queued counts the entries of every shard's expiry queue.
func (s *Store) queued() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.due)
		sh.mu.Unlock()
	}
	return n
}

// The pass drops what expired by the queue alone, as the full look at
// every space does (TestExpiryPassDropsWhatExpired): waits when their
// tombstone ends, receipts and logs at their TTL, spaces left with
// nothing; sessions stay, and nothing is left queued once nothing in
// them can expire. Also where every key's hash is the same.
func TestExpiryQueueDropsWhatExpired(t *testing.T) {
	// Apart, each of the four spaces is queued for its receipt, then
	// again for its sooner wait. Colliding, only the first space is: the
	// others are in the clash map, which every pass looks at whole.
	t.Run("hashes apart", func(t *testing.T) { testExpiryQueueDropsWhatExpired(t, 7) })
	t.Run("hashes collide", func(t *testing.T) {
		defer collideEveryHash(t)()
		testExpiryQueueDropsWhatExpired(t, 2)
	})
}

func testExpiryQueueDropsWhatExpired(t *testing.T, queued int) {
	s, clock := newClocked(t, time.Hour)
	start := clock.Now()
	seedExpiring(t, s, clock)
	if n := s.queued(); n != queued {
		t.Fatalf("%d queue entries, want %d", n, queued)
	}
	s.pass(start.Add(15*time.Minute), 0) // nothing is due yet
	c := s.counts()
	c.leases = 0 // lapsed, they are cleared where the pass looks (every space in a clash map)
	if c != (counts{spaces: 4, responses: 4, waits: 3, users: 1, userWaits: 3}) {
		t.Fatalf("before anything expired: %+v", c)
	}
	s.pass(start.Add(17*time.Minute), 0) // the waits' tombstones (15 + 1 min) ended
	if c := s.counts(); c.waits != 0 || c.userWaits != 0 || c.responses != 4 || c.spaces != 4 {
		t.Fatalf("after the waits: %+v", c)
	}
	s.pass(start.Add(time.Hour+time.Second), 0) // receipts and logs expired
	checkSeedExpired(t, s)
	if n := s.queued(); n != 0 {
		t.Fatalf("%d entries queued where nothing can expire", n)
	}
}

// A session's receipts go one by one as each one's TTL ends; the session
// is queued once at a time however many turns it takes, and stays.
func TestExpiryQueueFollowsEachReceipt(t *testing.T) {
	ctx := context.Background()
	s, clock := newClocked(t, time.Hour)
	start := clock.Now()
	commit := func(rid string, create bool) {
		t.Helper()
		if !create {
			b := store.Begin{User: "u", Session: "s", ResponseID: rid, Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute}
			if _, err := s.BeginResponse(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: rid, CreateSession: create,
			Receipt: []byte(`{"status":"completed"}`), Events: []store.Event{{Sequence: 0, Type: "x", JSON: []byte(`{}`)}},
			Messages: [][]byte{[]byte(`{"role":"user"}`)}, Release: true})
		if err != nil {
			t.Fatal(err)
		}
	}
	commit("r0", true)
	for i := 1; i <= 3; i++ {
		clock.Add(10 * time.Minute)
		commit(fmt.Sprintf("r%d", i), false)
	}
	for i := range 500 { // many turns within one second: queued once
		commit(fmt.Sprintf("q%d", i), false)
	}
	if n := s.queued(); n != 1 {
		t.Fatalf("%d queue entries for one session, want 1", n)
	}
	for i, want := range []int{503, 502, 501} {
		s.pass(start.Add(time.Hour+time.Duration(i)*10*time.Minute+time.Second), 0)
		if c := s.counts(); c.responses != want || c.spaces != 1 {
			t.Fatalf("%d min past the TTL: %+v, want %d responses", i*10, c, want)
		}
		if n := s.queued(); n != 1 {
			t.Fatalf("%d min past the TTL: %d queue entries, want 1", i*10, n)
		}
	}
	s.pass(start.Add(time.Hour+30*time.Minute+time.Second), 0)
	if c := s.counts(); c.responses != 0 || c.spaces != 1 {
		t.Fatalf("every receipt expired: %+v", c)
	}
	if n := s.queued(); n != 0 {
		t.Fatalf("%d queue entries left", n)
	}
	if msgs, err := s.LastMessages(ctx, "u", "s", 1000); err != nil || len(msgs) != 504 {
		t.Fatalf("the transcript: %d messages (%v)", len(msgs), err)
	}
}

// A renewal for a session that is gone keeps nothing: no pass would look
// at an empty space that nothing in expires.
func TestRenewOfAGoneSessionKeepsNoSpace(t *testing.T) {
	ctx := context.Background()
	s, _ := newClocked(t, time.Hour)
	held, err := s.RenewLease(ctx, "u", "gone", "r", "replica", 1, time.Minute)
	if err != nil || held {
		t.Fatalf("renew of a gone session: %v %v", held, err)
	}
	if n, c := s.tableSpaces(), s.counts(); n != 0 || c.spaces != 0 {
		t.Fatalf("the table holds %d spaces, the shards %d", n, c.spaces)
	}
}

func TestExpiryQueueIsAHeap(t *testing.T) {
	var q expiryQueue
	for _, at := range []int64{5, 3, 9, 1, 7, 3, 8, 2, 6, 4} {
		q.push(dueSpace{at: at})
	}
	if _, ok := q.popDue(0); ok {
		t.Fatal("popped an entry that is not due")
	}
	var got []int64
	for {
		d, ok := q.popDue(100)
		if !ok {
			break
		}
		got = append(got, d.at)
	}
	if fmt.Sprint(got) != "[1 2 3 3 4 5 6 7 8 9]" {
		t.Fatalf("popped %v", got)
	}
	if q != nil {
		t.Fatal("a drained queue keeps its array")
	}
}
