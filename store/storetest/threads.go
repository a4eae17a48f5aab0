package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testThreads is the contract of the store's thread operations.
func testThreads(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"PutGet":    testThreadPutGet,
		"Isolation": testThreadIsolation,
	})
	t.Run("Expiry", func(t *testing.T) { testThreadExpiry(t, h) })
}

func mustPutThread(t *testing.T, st store.Store, user, thread string, rec store.ThreadRecord) {
	t.Helper()
	if err := st.PutThread(context.Background(), user, thread, rec); err != nil {
		t.Fatalf("PutThread(%q, %q): %v", user, thread, err)
	}
}

func mustGetThread(t *testing.T, st store.Store, user, thread string) (store.ThreadRecord, bool) {
	t.Helper()
	rec, found, err := st.GetThread(context.Background(), user, thread)
	if err != nil {
		t.Fatalf("GetThread(%q, %q): %v", user, thread, err)
	}
	return rec, found
}

func testThreadPutGet(t *testing.T, st store.Store) {
	if _, found := mustGetThread(t, st, "u", "th"); found {
		t.Fatal("a thread that was never put is found")
	}
	mustPutThread(t, st, "u", "th", store.ThreadRecord{ResponseID: "r1", UserKey: "k1"})
	if rec, found := mustGetThread(t, st, "u", "th"); !found || rec != (store.ThreadRecord{ResponseID: "r1", UserKey: "k1"}) {
		t.Fatalf("after the first put: %v %+v", found, rec)
	}
	// A put replaces the whole record (an empty user key too).
	mustPutThread(t, st, "u", "th", store.ThreadRecord{ResponseID: "r2"})
	if rec, found := mustGetThread(t, st, "u", "th"); !found || rec != (store.ThreadRecord{ResponseID: "r2"}) {
		t.Fatalf("after the second put: %v %+v", found, rec)
	}
	if _, found := mustGetThread(t, st, "u", "other"); found {
		t.Fatal("another thread of the user is found")
	}
}

// testThreadIsolation checks that users and threads are apart, also when
// their IDs contain the characters that separate or tag keys.
func testThreadIsolation(t *testing.T, st store.Store) {
	pairs := [][2]string{{"a:b", "c"}, {"a", "b:c"}, {"{a}", "b"}, {"a%3Ab", "c"}, {"a}:{b", "%c"}, {"a", "b%3Ac"}}
	for _, p := range pairs {
		mustPutThread(t, st, p[0], p[1], store.ThreadRecord{ResponseID: p[0] + "|" + p[1]})
	}
	for _, p := range pairs {
		if rec, found := mustGetThread(t, st, p[0], p[1]); !found || rec.ResponseID != p[0]+"|"+p[1] {
			t.Fatalf("user %q thread %q: %v %+v", p[0], p[1], found, rec)
		}
	}
	if _, found := mustGetThread(t, st, "b", "c"); found {
		t.Fatal("a thread is found for a user who never put it")
	}
}

// testThreadExpiry checks that a record lasts the receipts' lifetime after
// its last put.
func testThreadExpiry(t *testing.T, h Harness) {
	const ttl = time.Second
	st := h.Open(t, ttl)
	mustPutThread(t, st, "u", "first", store.ThreadRecord{ResponseID: "r1"})
	mustPutThread(t, st, "u", "renewed", store.ThreadRecord{ResponseID: "r1"})
	h.Elapse(700 * time.Millisecond)
	mustPutThread(t, st, "u", "second", store.ThreadRecord{ResponseID: "r2"})
	mustPutThread(t, st, "u", "renewed", store.ThreadRecord{ResponseID: "r2"})
	h.Elapse(700 * time.Millisecond)
	if _, found := mustGetThread(t, st, "u", "first"); found {
		t.Fatal("a thread record is found after the receipts' lifetime")
	}
	for _, thread := range []string{"second", "renewed"} {
		if rec, found := mustGetThread(t, st, "u", thread); !found || rec.ResponseID != "r2" {
			t.Fatalf("thread %s: %v %+v, want r2 (the receipts' lifetime after its last put)", thread, found, rec)
		}
	}
}
