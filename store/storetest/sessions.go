package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testSessions is the contract of sessions: create, read, list, patch and
// delete, per user.
func testSessions(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"Lifecycle":                  sessionLifecycle,
		"IDsCannotNameOthersData":    idsCannotNameOthersData,
		"ListIsAKeysetPage":          listIsAKeysetPage,
		"DeleteRemovesEverything":    deleteRemovesEverything,
		"DeleteRefusedWhileHeld":     deleteRefusedWhileHeld,
		"BeginCreatesAListedSession": beginCreatesAListedSession,
	})
}

func sessionLifecycle(t *testing.T, s store.Store) {
	state := map[string]json.RawMessage{"a": json.RawMessage(`1`), "b": json.RawMessage(`{"x":[]}`)}
	if err := s.CreateSession(ctx, "u1", "s1", state, "t0"); err != nil {
		t.Fatal(err)
	}
	state["a"][0] = '9' // the store kept its own copy
	if err := s.CreateSession(ctx, "u1", "s1", nil, "t0"); !errors.Is(err, store.ErrSessionExists) {
		t.Fatalf("second create: %v, want ErrSessionExists", err)
	}
	// Another user may own the same ID.
	if err := s.CreateSession(ctx, "u2", "s1", nil, "t0"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.SessionExists(ctx, "u1", "s1"); !ok || err != nil {
		t.Fatalf("exists: %v %v", ok, err)
	}
	if ok, _ := s.SessionExists(ctx, "u3", "s1"); ok {
		t.Fatal("another user's session exists for u3")
	}
	got, found, err := s.GetSession(ctx, "u1", "s1")
	if err != nil || !found {
		t.Fatalf("get: %v %v", found, err)
	}
	if got.ID != "s1" || got.UserID != "u1" || string(got.State["a"]) != "1" || string(got.State["b"]) != `{"x":[]}` ||
		got.CreatedAt != "t0" || got.UpdatedAt != "t0" {
		t.Fatalf("state not kept exactly: %+v", got)
	}
	got, found, err = s.PatchState(ctx, "u1", "s1", map[string]json.RawMessage{"b": json.RawMessage(`2`), "c": json.RawMessage(`null`)}, "t1")
	if err != nil || !found {
		t.Fatal(found, err)
	}
	if string(got.State["a"]) != "1" || string(got.State["b"]) != "2" || string(got.State["c"]) != "null" || got.UpdatedAt != "t1" || got.CreatedAt != "t0" {
		t.Fatalf("shallow merge: %+v", got)
	}
	if got, _, _ := s.GetSession(ctx, "u1", "s1"); len(got.State) != 3 {
		t.Fatalf("patched state read back: %+v", got.State)
	}
	if _, found, _ := s.PatchState(ctx, "u3", "s1", map[string]json.RawMessage{"x": json.RawMessage(`1`)}, "t1"); found {
		t.Fatal("patch of another user's session found it")
	}
	if _, found, _ := s.GetSession(ctx, "u3", "s1"); found {
		t.Fatal("a patch of a missing session created it")
	}
	if found, err := s.DeleteSession(ctx, "u1", "s1"); !found || err != nil {
		t.Fatal(found, err)
	}
	if found, err := s.DeleteSession(ctx, "u1", "s1"); found || err != nil {
		t.Fatalf("second delete: %v %v", found, err)
	}
	if _, found, _ := s.GetSession(ctx, "u1", "s1"); found {
		t.Fatal("deleted session still readable")
	}
	if ok, _ := s.SessionExists(ctx, "u1", "s1"); ok {
		t.Fatal("deleted session still exists")
	}
	if _, found, _ := s.GetSession(ctx, "u2", "s1"); !found {
		t.Fatal("deleting u1's session removed u2's")
	}
	// A deleted session's ID may be used again, from scratch.
	if err := s.CreateSession(ctx, "u1", "s1", nil, "t2"); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.GetSession(ctx, "u1", "s1"); len(got.State) != 0 || got.CreatedAt != "t2" {
		t.Fatalf("recreated session: %+v", got)
	}
}

// IDs that would collide if joined with a separator name different data.
func idsCannotNameOthersData(t *testing.T, s store.Store) {
	if err := s.CreateSession(ctx, "a", "b:c", nil, "t"); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{"a:b", "c"}, {"a}", "b:c"}, {"a", "b"}, {"a", "b:c}"}, {"a%3Ab", "c"}} {
		if _, found, _ := s.GetSession(ctx, c[0], c[1]); found {
			t.Fatalf("user %q sees session %q of user a", c[0], c[1])
		}
	}
	mustBegin(t, s, "a", "b:c", "r:1", false, time.Minute)
	if _, found, _ := s.Receipt(ctx, "a:b", "c", "r:1"); found {
		t.Fatal("user a:b reads a receipt of user a")
	}
	if _, found, _ := s.Receipt(ctx, "a", "b", "c:r:1"); found {
		t.Fatal("session b reads a receipt of session b:c")
	}
}

func listIsAKeysetPage(t *testing.T, s store.Store) {
	for i := 24; i >= 0; i-- { // created out of order: listed in ID order
		if err := s.CreateSession(ctx, "u", fmt.Sprintf("s%02d", i), nil, "t"); err != nil {
			t.Fatal(err)
		}
	}
	for _, other := range []string{"other", "u:x", "uu"} {
		if err := s.CreateSession(ctx, other, "s05x", nil, "t"); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	after := ""
	for page := 0; page < 10; page++ {
		rows, err := s.ListSessions(ctx, "u", after, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.UserID != "u" {
				t.Fatalf("listed another user's session %+v", r)
			}
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
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("not in ID order: %v", ids)
		}
	}
	// after need not be a listed ID: the page starts after where it sorts.
	rows, err := s.ListSessions(ctx, "u", "s05x", 2)
	if err != nil || len(rows) != 2 || rows[0].ID != "s06" || rows[1].ID != "s07" {
		t.Fatalf("page after s05x: %+v %v", rows, err)
	}
	if rows, _ := s.ListSessions(ctx, "u", "s24", 10); len(rows) != 0 {
		t.Fatalf("page after the last: %+v", rows)
	}
	if rows, _ := s.ListSessions(ctx, "nobody", "", 10); len(rows) != 0 {
		t.Fatalf("a user without sessions lists %+v", rows)
	}
	// A deleted session leaves the list.
	if _, err := s.DeleteSession(ctx, "u", "s00"); err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.ListSessions(ctx, "u", "", 1); len(rows) != 1 || rows[0].ID != "s01" {
		t.Fatalf("first after deleting s00: %+v", rows)
	}
}

// Deleting a session removes its transcript, responses, receipts, event
// logs and assets; a new session of the same ID starts empty.
func deleteRemovesEverything(t *testing.T, s store.Store) {
	mustFillSession(t, s)
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
		t.Fatal(found, err)
	}
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); found {
		t.Fatal("receipt survived its session")
	}
	if got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10); err != nil || len(got) != 0 {
		t.Fatalf("event log survived its session: %v %v", sequences(got), err)
	}
	if rows, _ := s.ListSessions(ctx, "u", "", 10); len(rows) != 0 {
		t.Fatalf("deleted session still listed: %+v", rows)
	}
	if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := s.Messages(ctx, "u", "s", 0, 10); len(msgs) != 0 {
		t.Fatalf("transcript survived its session: %d messages", len(msgs))
	}
	if _, found, _ := s.GetAsset(ctx, "u", "s", "a"); found {
		t.Fatal("asset survived its session")
	}
	if sb, ub, _ := s.AssetUsage(ctx, "u", "s"); sb != 0 || ub != 0 {
		t.Fatalf("asset bytes survived their session: %d %d", sb, ub)
	}
}

func deleteRefusedWhileHeld(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	if err := s.PutAsset(ctx, "u", "s", store.Asset{ID: "a"}, []byte("xyz"), store.AssetQuota{}); err != nil {
		t.Fatal(err)
	}
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || !errors.Is(err, store.ErrSessionBusy) {
		t.Fatalf("delete while held: %v %v, want ErrSessionBusy", found, err)
	}
	if _, found, _ := s.Receipt(ctx, "u", "s", "resp_1"); !found {
		t.Fatal("a refused delete removed the receipt")
	}
	if sb, ub, _ := s.AssetUsage(ctx, "u", "s"); sb != 3 || ub != 3 {
		t.Fatalf("a refused delete freed the assets: %d %d", sb, ub)
	}
	finish(t, s, "u", "s", "resp_1")
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
		t.Fatalf("delete once released: %v %v", found, err)
	}
	if sb, ub, _ := s.AssetUsage(ctx, "u", "s"); sb != 0 || ub != 0 {
		t.Fatalf("usage after delete: %d %d", sb, ub)
	}
}

func beginCreatesAListedSession(t *testing.T, s store.Store) {
	state, err := s.BeginResponse(ctx, beginArgs("u", "s", "resp_1", true, time.Minute))
	if err != nil || state == nil || len(state) != 0 {
		t.Fatalf("begin of a new session: %v %v", state, err)
	}
	got, found, _ := s.GetSession(ctx, "u", "s")
	if !found || got.CreatedAt != "t0" {
		t.Fatalf("session made by begin: %+v %v", got, found)
	}
	if rows, _ := s.ListSessions(ctx, "u", "", 10); len(rows) != 1 || rows[0].ID != "s" {
		t.Fatalf("session made by begin not listed: %+v", rows)
	}
}
