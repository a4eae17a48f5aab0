package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testResponseRequests is the contract of the Open Responses door's
// request records.
func testResponseRequests(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"PutGet":    testResponseRequestPutGet,
		"Isolation": testResponseRequestIsolation,
	})
	t.Run("Expiry", func(t *testing.T) { testResponseRequestExpiry(t, h) })
}

func mustPutResponseRequest(t *testing.T, st store.Store, user, session, id, rec string) {
	t.Helper()
	if err := st.PutResponseRequest(context.Background(), user, session, id, []byte(rec)); err != nil {
		t.Fatalf("PutResponseRequest(%q, %q, %q): %v", user, session, id, err)
	}
}

func mustGetResponseRequest(t *testing.T, st store.Store, user, session, id string) (string, bool) {
	t.Helper()
	rec, found, err := st.GetResponseRequest(context.Background(), user, session, id)
	if err != nil {
		t.Fatalf("GetResponseRequest(%q, %q, %q): %v", user, session, id, err)
	}
	return string(rec), found
}

func testResponseRequestPutGet(t *testing.T, st store.Store) {
	if _, found := mustGetResponseRequest(t, st, "u", "s", "r1"); found {
		t.Fatal("a record that was never put is found")
	}
	mustPutResponseRequest(t, st, "u", "s", "r1", `{"tools":[1]}`)
	if rec, found := mustGetResponseRequest(t, st, "u", "s", "r1"); !found || rec != `{"tools":[1]}` {
		t.Fatalf("after the put: %v %q", found, rec)
	}
	// A put replaces the whole record.
	mustPutResponseRequest(t, st, "u", "s", "r1", `{}`)
	if rec, found := mustGetResponseRequest(t, st, "u", "s", "r1"); !found || rec != `{}` {
		t.Fatalf("after the second put: %v %q", found, rec)
	}
	if _, found := mustGetResponseRequest(t, st, "u", "s", "r2"); found {
		t.Fatal("another response's record is found")
	}
}

// testResponseRequestIsolation checks that users, sessions and responses
// are apart, also when their IDs contain the characters that separate or
// tag keys.
func testResponseRequestIsolation(t *testing.T, st store.Store) {
	triples := [][3]string{{"a:b", "c", "d"}, {"a", "b:c", "d"}, {"a", "b", "c:d"}, {"{a}", "b", "c"}, {"a", "b}:{c", "d"}, {"a", "b", "%3Ac"}}
	for _, p := range triples {
		mustPutResponseRequest(t, st, p[0], p[1], p[2], `"`+p[0]+"|"+p[1]+"|"+p[2]+`"`)
	}
	for _, p := range triples {
		if rec, found := mustGetResponseRequest(t, st, p[0], p[1], p[2]); !found || rec != `"`+p[0]+"|"+p[1]+"|"+p[2]+`"` {
			t.Fatalf("%q: %v %q", p, found, rec)
		}
	}
	if _, found := mustGetResponseRequest(t, st, "b", "a", "d"); found {
		t.Fatal("a record is found for a user who never put it")
	}
}

// testResponseRequestExpiry checks that a record lasts the receipts'
// lifetime after its put.
func testResponseRequestExpiry(t *testing.T, h Harness) {
	const ttl = time.Second
	st := h.Open(t, ttl)
	mustPutResponseRequest(t, st, "u", "s", "first", `1`)
	h.Elapse(700 * time.Millisecond)
	mustPutResponseRequest(t, st, "u", "s", "second", `2`)
	h.Elapse(700 * time.Millisecond)
	if _, found := mustGetResponseRequest(t, st, "u", "s", "first"); found {
		t.Fatal("a record is found after the receipts' lifetime")
	}
	if rec, found := mustGetResponseRequest(t, st, "u", "s", "second"); !found || rec != `2` {
		t.Fatalf("second: %v %q, want it kept for the receipts' lifetime", found, rec)
	}
}
