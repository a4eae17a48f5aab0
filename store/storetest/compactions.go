package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testCompactions is the contract of a session's compaction state: read
// and replaced as a whole, refused on a stale read, a missing session or
// the wrong lease, with its item appended to the transcript at the end,
// and removed with the session.
func testCompactions(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"SaveAndRead":    compactionSaveAndRead,
		"Refusals":       compactionRefusals,
		"DuringTurn":     compactionDuringTurn,
		"GoneWithDelete": compactionGoneWithDelete,
	})
}

func compactionSaveAndRead(t *testing.T, s store.Store) {
	commitMessages(t, s, "u", "s", 0, 0, 4) // m0..m3
	if st, _, err := s.CompactionState(ctx, "u", "s", 0); err != nil || st != nil {
		t.Fatalf("state before any = %q, %v; want nil", st, err)
	}
	off, err := s.SaveCompaction(ctx, store.CompactionSave{User: "u", Session: "s", State: []byte(`{"v":1}`),
		Item: []byte(`{"id":"m4"}`), Now: "t2"})
	if err != nil || off != 4 {
		t.Fatalf("save = %d, %v; want offset 4", off, err)
	}
	if st, _, err := s.CompactionState(ctx, "u", "s", 0); err != nil || string(st) != `{"v":1}` {
		t.Fatalf("state = %q, %v", st, err)
	}
	if sess, _, _ := s.GetSession(ctx, "u", "s"); sess.UpdatedAt != "t2" {
		t.Errorf("updatedAt = %q, want the item's t2", sess.UpdatedAt)
	}
	// A state alone (no item) leaves the transcript as it is.
	off, err = s.SaveCompaction(ctx, store.CompactionSave{User: "u", Session: "s", Prev: []byte(`{"v":1}`), State: []byte(`{"v":2}`), Now: "t3"})
	if err != nil || off != -1 {
		t.Fatalf("save without item = %d, %v; want -1", off, err)
	}
	all, err := s.Messages(ctx, "u", "s", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkMessages(t, "transcript", all, 0, 5)
	// The next turn's messages go after the item; the state comes with
	// the newest messages, as LastMessages reads them.
	commitMessages(t, s, "u", "s", 1, 5, 2)
	last, err := s.LastMessages(ctx, "u", "s", 3)
	if err != nil {
		t.Fatal(err)
	}
	checkMessages(t, "last", last, 4, 3)
	st, tail, err := s.CompactionState(ctx, "u", "s", 3)
	if err != nil || string(st) != `{"v":2}` {
		t.Fatalf("state with messages = %q, %v", st, err)
	}
	checkMessages(t, "state's tail", tail, 4, 3)
	if _, tail, _ = s.CompactionState(ctx, "u", "s", 50); len(tail) != 7 {
		t.Errorf("a tail longer than the transcript has %d messages, want 7", len(tail))
	}
	if _, tail, _ = s.CompactionState(ctx, "u", "s", 0); tail != nil {
		t.Errorf("no tail asked, %d messages read", len(tail))
	}
	// A session without a state still gives its messages.
	commitMessages(t, s, "u", "s2", 0, 0, 2)
	st, tail, err = s.CompactionState(ctx, "u", "s2", 5)
	if err != nil || st != nil {
		t.Fatalf("state of s2 = %q, %v", st, err)
	}
	checkMessages(t, "s2's tail", tail, 0, 2)
	// Another user's session of that ID has no state.
	if st, _, err := s.CompactionState(ctx, "v", "s", 0); err != nil || st != nil {
		t.Errorf("another user's state = %q, %v", st, err)
	}
}

func compactionRefusals(t *testing.T, s store.Store) {
	save := func(c store.CompactionSave) error {
		c.Now = "t9"
		_, err := s.SaveCompaction(ctx, c)
		return err
	}
	if err := save(store.CompactionSave{User: "u", Session: "none", State: []byte(`{}`), Item: []byte(`{}`)}); !errors.Is(err, store.ErrSessionNotFound) {
		t.Errorf("no session: %v, want ErrSessionNotFound", err)
	}
	commitMessages(t, s, "u", "s", 0, 0, 2)
	if err := save(store.CompactionSave{User: "v", Session: "s", State: []byte(`{}`)}); !errors.Is(err, store.ErrSessionNotFound) {
		t.Errorf("another user's: %v, want ErrSessionNotFound", err)
	}
	if err := save(store.CompactionSave{User: "u", Session: "s", Prev: []byte(`{"v":0}`), State: []byte(`{"v":1}`)}); !errors.Is(err, store.ErrCompactionChanged) {
		t.Errorf("a previous state where there is none: %v, want ErrCompactionChanged", err)
	}
	if err := save(store.CompactionSave{User: "u", Session: "s", State: []byte(`{"v":1}`)}); err != nil {
		t.Fatal(err)
	}
	for _, prev := range [][]byte{nil, []byte(`{"v":0}`)} {
		if err := save(store.CompactionSave{User: "u", Session: "s", Prev: prev, State: []byte(`{"v":2}`), Item: []byte(`{"id":"x"}`)}); !errors.Is(err, store.ErrCompactionChanged) {
			t.Errorf("stale read %q: %v, want ErrCompactionChanged", prev, err)
		}
	}
	if err := save(store.CompactionSave{User: "u", Session: "s", Holder: "resp_9", Prev: []byte(`{"v":1}`), State: []byte(`{"v":2}`)}); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("a holder that holds nothing: %v, want ErrLeaseLost", err)
	}
	mustBegin(t, s, "u", "s", "resp_busy", false, time.Minute)
	if err := save(store.CompactionSave{User: "u", Session: "s", Prev: []byte(`{"v":1}`), State: []byte(`{"v":2}`), Item: []byte(`{"id":"x"}`)}); !errors.Is(err, store.ErrSessionBusy) {
		t.Errorf("busy session: %v, want ErrSessionBusy", err)
	}
	if st, _, _ := s.CompactionState(ctx, "u", "s", 0); string(st) != `{"v":1}` {
		t.Errorf("state after refusals = %q, want the first", st)
	}
	if all, _ := s.Messages(ctx, "u", "s", 0, 0); len(all) != 2 {
		t.Errorf("refused saves appended %d messages", len(all)-2)
	}
}

func compactionDuringTurn(t *testing.T, s store.Store) {
	commitMessages(t, s, "u", "s", 0, 0, 2)
	mustBegin(t, s, "u", "s", "resp_1", false, time.Minute)
	off, err := s.SaveCompaction(ctx, store.CompactionSave{User: "u", Session: "s", Holder: "resp_1",
		State: []byte(`{"v":1}`), Item: []byte(`{"id":"m2"}`), Now: "t2"})
	if err != nil || off != 2 {
		t.Fatalf("the holder's save = %d, %v", off, err)
	}
	if _, err := s.SaveCompaction(ctx, store.CompactionSave{User: "u", Session: "s", Holder: "resp_other",
		Prev: []byte(`{"v":1}`), State: []byte(`{"v":2}`), Now: "t2"}); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("another response's save: %v, want ErrLeaseLost", err)
	}
	err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: completed,
		Messages: [][]byte{[]byte(`{"id":"m3"}`), []byte(`{"id":"m4"}`)}, Release: true, Replica: "r1", Now: "t3"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Messages(ctx, "u", "s", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkMessages(t, "transcript", all, 0, 5)
}

func compactionGoneWithDelete(t *testing.T, s store.Store) {
	commitMessages(t, s, "u", "s", 0, 0, 2)
	if _, err := s.SaveCompaction(ctx, store.CompactionSave{User: "u", Session: "s", State: []byte(`{"v":1}`), Item: []byte(`{"id":"m2"}`), Now: "t"}); err != nil {
		t.Fatal(err)
	}
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
		t.Fatalf("delete = %v, %v", found, err)
	}
	if st, _, err := s.CompactionState(ctx, "u", "s", 0); err != nil || st != nil {
		t.Errorf("state after delete = %q, %v", st, err)
	}
	commitMessages(t, s, "u", "s", 0, 0, 2) // the session made again
	if st, _, err := s.CompactionState(ctx, "u", "s", 0); err != nil || st != nil {
		t.Errorf("state of the session made again = %q, %v", st, err)
	}
}
