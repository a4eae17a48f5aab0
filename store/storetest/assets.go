package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testAssets is the contract of assets: stored per session, read whole or
// by byte range, counted against the session's and the user's quotas.
func testAssets(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"Lifecycle":       assetLifecycle,
		"ReadToTheEnd":    assetReadToTheEnd,
		"Quotas":          assetQuotas,
		"ReplacedUnderID": assetReplacedUnderItsID,
		"Concurrency":     assetConcurrency,
		"HeldSession":     assetsOfAHeldSession,
	})
}

func mustUsage(t *testing.T, s store.Store, user, session string, wantSession, wantUser int64) {
	t.Helper()
	sb, ub, err := s.AssetUsage(ctx, user, session)
	if err != nil {
		t.Fatal(err)
	}
	if sb != wantSession || ub != wantUser {
		t.Fatalf("usage of %s/%s: session %d user %d, want %d and %d", user, session, sb, ub, wantSession, wantUser)
	}
}

func assetLifecycle(t *testing.T, s store.Store) {
	q := store.AssetQuota{Session: 1 << 20, User: 1 << 20}
	data := bytes.Repeat([]byte("0123456789"), 100)
	a := store.Asset{ID: "asset_1", MediaType: "image/png", Info: []byte(`{"width":1}`), CreatedAt: "t"}
	if err := s.PutAsset(ctx, "u", "s", a, data, q); !errors.Is(err, store.ErrSessionNotFound) {
		t.Fatalf("put into a missing session: %v", err)
	}
	mustUsage(t, s, "u", "s", 0, 0)
	if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAsset(ctx, "u", "s", a, data, q); err != nil {
		t.Fatal(err)
	}
	data[0] = 'X' // the store kept its own copy
	mustUsage(t, s, "u", "s", 1000, 1000)
	got, found, err := s.GetAsset(ctx, "u", "s", "asset_1")
	if err != nil || !found || got.ID != "asset_1" || got.Size != 1000 || got.MediaType != "image/png" || string(got.Info) != `{"width":1}` || got.CreatedAt != "t" {
		t.Fatalf("get: %+v %v %v", got, found, err)
	}
	whole, meta, found, err := s.ReadAsset(ctx, "u", "s", "asset_1", 0, 1000)
	if err != nil || !found || len(whole) != 1000 || whole[0] != '0' || meta.Size != 1000 {
		t.Fatalf("read whole: %d bytes %+v %v %v", len(whole), meta, found, err)
	}
	part, meta, found, err := s.ReadAsset(ctx, "u", "s", "asset_1", 995, 100)
	if err != nil || !found || string(part) != "56789" || meta.Size != 1000 {
		t.Fatalf("read tail: %q %+v %v %v", part, meta, found, err)
	}
	part, _, _, _ = s.ReadAsset(ctx, "u", "s", "asset_1", 10, 3)
	if string(part) != "012" {
		t.Fatalf("read range: %q", part)
	}
	if part, _, found, _ := s.ReadAsset(ctx, "u", "s", "asset_1", 0, 0); !found || len(part) != 0 {
		t.Fatalf("empty read: %q %v", part, found)
	}
	if part, _, found, _ := s.ReadAsset(ctx, "u", "s", "asset_1", 2000, 10); !found || len(part) != 0 {
		t.Fatalf("read past the end: %q %v", part, found)
	}
	// Other users and sessions do not see it.
	for _, c := range [][2]string{{"other", "s"}, {"u", "s2"}} {
		if _, found, _ := s.GetAsset(ctx, c[0], c[1], "asset_1"); found {
			t.Fatalf("%v sees the asset", c)
		}
		if _, _, found, _ := s.ReadAsset(ctx, c[0], c[1], "asset_1", 0, 10); found {
			t.Fatalf("%v reads the asset", c)
		}
		if found, _ := s.DeleteAsset(ctx, c[0], c[1], "asset_1"); found {
			t.Fatalf("%v deleted the asset", c)
		}
	}
	if found, err := s.DeleteAsset(ctx, "u", "s", "asset_1"); !found || err != nil {
		t.Fatal(found, err)
	}
	if found, _ := s.DeleteAsset(ctx, "u", "s", "asset_1"); found {
		t.Fatal("deleted twice")
	}
	if _, _, found, _ := s.ReadAsset(ctx, "u", "s", "asset_1", 0, 10); found {
		t.Fatal("deleted asset readable")
	}
	if _, found, _ := s.GetAsset(ctx, "u", "s", "asset_1"); found {
		t.Fatal("deleted asset found")
	}
	mustUsage(t, s, "u", "s", 0, 0)
}

// A negative length reads from the offset to the end; a negative offset
// is an error.
func assetReadToTheEnd(t *testing.T, s store.Store) {
	if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
		t.Fatal(err)
	}
	data := []byte("0123456789")
	if err := s.PutAsset(ctx, "u", "s", store.Asset{ID: "a"}, data, store.AssetQuota{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		offset int64
		want   string
	}{{0, "0123456789"}, {7, "789"}, {9, "9"}, {10, ""}, {50, ""}} {
		got, meta, found, err := s.ReadAsset(ctx, "u", "s", "a", c.offset, -1)
		if err != nil || !found || string(got) != c.want || meta.Size != 10 {
			t.Fatalf("read from %d to the end: %q %+v %v %v, want %q", c.offset, got, meta, found, err, c.want)
		}
	}
	if _, _, _, err := s.ReadAsset(ctx, "u", "s", "a", -1, 5); err == nil {
		t.Fatal("a read from a negative offset was not refused")
	}
	if _, _, found, err := s.ReadAsset(ctx, "u", "s", "nope", 0, -1); found || err != nil {
		t.Fatalf("read of a missing asset to the end: %v %v", found, err)
	}
	// An empty asset reads as nothing, to the end too.
	if err := s.PutAsset(ctx, "u", "s", store.Asset{ID: "empty"}, nil, store.AssetQuota{}); err != nil {
		t.Fatal(err)
	}
	if got, meta, found, err := s.ReadAsset(ctx, "u", "s", "empty", 0, -1); err != nil || !found || len(got) != 0 || meta.Size != 0 {
		t.Fatalf("read of an empty asset: %q %+v %v %v", got, meta, found, err)
	}
}

func assetQuotas(t *testing.T, s store.Store) {
	q := store.AssetQuota{Session: 250, User: 400}
	for _, id := range []string{"s1", "s2"} {
		if err := s.CreateSession(ctx, "u", id, nil, "t"); err != nil {
			t.Fatal(err)
		}
	}
	put := func(session, id string, n int) error {
		return s.PutAsset(ctx, "u", session, store.Asset{ID: id, MediaType: "application/octet-stream"}, make([]byte, n), q)
	}
	if err := put("s1", "a", 200); err != nil {
		t.Fatal(err)
	}
	if err := put("s1", "b", 51); !errors.Is(err, store.ErrSessionQuota) {
		t.Fatalf("past the session quota: %v", err)
	}
	if err := put("s1", "b", 50); err != nil {
		t.Fatal(err)
	}
	mustUsage(t, s, "u", "s1", 250, 250)
	if err := put("s2", "c", 151); !errors.Is(err, store.ErrUserQuota) {
		t.Fatalf("past the user quota: %v", err)
	}
	if err := put("s2", "c", 150); err != nil {
		t.Fatal(err)
	}
	mustUsage(t, s, "u", "s2", 150, 400)
	// A refused put gave its reservation back.
	if err := put("nope", "d", 1); !errors.Is(err, store.ErrSessionNotFound) && !errors.Is(err, store.ErrUserQuota) {
		t.Fatal(err)
	}
	mustUsage(t, s, "u", "s2", 150, 400)
	// Deleting an asset or a session frees its bytes for the user.
	if found, err := s.DeleteAsset(ctx, "u", "s2", "c"); !found || err != nil {
		t.Fatal(found, err)
	}
	mustUsage(t, s, "u", "s2", 0, 250)
	if err := put("s2", "c", 150); err != nil {
		t.Fatal(err)
	}
	if found, err := s.DeleteSession(ctx, "u", "s1"); !found || err != nil {
		t.Fatal(found, err)
	}
	mustUsage(t, s, "u", "s1", 0, 150)
	if err := s.CreateSession(ctx, "u", "s1", nil, "t"); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.GetAsset(ctx, "u", "s1", "a"); found {
		t.Fatal("asset survived its session")
	}
	if err := put("s1", "e", 250); err != nil {
		t.Fatal(err)
	}
	mustUsage(t, s, "u", "s1", 250, 400)
	// Other users have their own quota; no limit is no limit.
	if err := s.CreateSession(ctx, "v", "s1", nil, "t"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAsset(ctx, "v", "s1", store.Asset{ID: "a"}, make([]byte, 250), q); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAsset(ctx, "v", "s1", store.Asset{ID: "big"}, make([]byte, 5000), store.AssetQuota{}); err != nil {
		t.Fatal(err)
	}
	mustUsage(t, s, "v", "s1", 5250, 5250)
}

// An asset stored again under its ID replaces the old one: its content,
// metadata and size, and the quotas count its bytes once.
func assetReplacedUnderItsID(t *testing.T, s store.Store) {
	q := store.AssetQuota{Session: 250, User: 300}
	for _, id := range []string{"s1", "s2"} {
		if err := s.CreateSession(ctx, "u", id, nil, "t"); err != nil {
			t.Fatal(err)
		}
	}
	put := func(session, id, mediaType string, data []byte) error {
		return s.PutAsset(ctx, "u", session, store.Asset{ID: id, MediaType: mediaType, Info: []byte(`{"v":"` + mediaType + `"}`), CreatedAt: mediaType}, data, q)
	}
	if err := put("s1", "a", "v1", bytes.Repeat([]byte("1"), 200)); err != nil {
		t.Fatal(err)
	}
	if err := put("s1", "b", "v1", make([]byte, 50)); err != nil {
		t.Fatal(err)
	}
	mustUsage(t, s, "u", "s1", 250, 250)
	// The session is full, but a replacement of the same size fits.
	if err := put("s1", "a", "v2", bytes.Repeat([]byte("2"), 200)); err != nil {
		t.Fatalf("a replacement of the same size in a full session: %v", err)
	}
	mustUsage(t, s, "u", "s1", 250, 250)
	got, meta, found, err := s.ReadAsset(ctx, "u", "s1", "a", 0, -1)
	if err != nil || !found || len(got) != 200 || got[0] != '2' || meta.Size != 200 || meta.MediaType != "v2" ||
		string(meta.Info) != `{"v":"v2"}` || meta.CreatedAt != "v2" {
		t.Fatalf("replaced asset: %d bytes from %q, %+v %v %v", len(got), got[:min(1, len(got))], meta, found, err)
	}
	// A smaller one frees bytes; a larger one counts only what it adds.
	if err := put("s1", "a", "v3", make([]byte, 120)); err != nil {
		t.Fatal(err)
	}
	mustUsage(t, s, "u", "s1", 170, 170)
	if err := put("s1", "a", "v4", make([]byte, 200)); err != nil {
		t.Fatal(err)
	}
	mustUsage(t, s, "u", "s1", 250, 250)
	// A replacement past a quota is refused and keeps the old asset.
	if err := put("s1", "a", "v5", make([]byte, 201)); !errors.Is(err, store.ErrSessionQuota) {
		t.Fatalf("a replacement past the session quota: %v, want ErrSessionQuota", err)
	}
	if err := put("s2", "c", "v1", make([]byte, 50)); err != nil {
		t.Fatal(err)
	}
	if err := put("s2", "c", "v2", make([]byte, 51)); !errors.Is(err, store.ErrUserQuota) {
		t.Fatalf("a replacement past the user quota: %v, want ErrUserQuota", err)
	}
	if err := put("s2", "c", "v3", make([]byte, 50)); err != nil {
		t.Fatalf("a replacement of the same size at the user quota: %v", err)
	}
	if meta, found, _ := s.GetAsset(ctx, "u", "s1", "a"); !found || meta.Size != 200 || meta.MediaType != "v4" {
		t.Fatalf("refused replacements changed the asset: %+v %v", meta, found)
	}
	mustUsage(t, s, "u", "s1", 250, 300)
	mustUsage(t, s, "u", "s2", 50, 300)
	// Deleting it gives back its bytes once.
	if found, err := s.DeleteAsset(ctx, "u", "s1", "a"); !found || err != nil {
		t.Fatal(found, err)
	}
	mustUsage(t, s, "u", "s1", 50, 100)
	if found, err := s.DeleteSession(ctx, "u", "s2"); !found || err != nil {
		t.Fatal(found, err)
	}
	mustUsage(t, s, "u", "s1", 50, 50)
}

// Concurrent uploads to one session never pass its quota together, and
// uploads racing a session delete leave no asset behind and no bytes
// counted.
func assetConcurrency(t *testing.T, s store.Store) {
	if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
		t.Fatal(err)
	}
	q := store.AssetQuota{Session: 1000, User: 1 << 20}
	stored := raceWins(t, 20, func(i int) (bool, error) {
		err := s.PutAsset(ctx, "u", "s", store.Asset{ID: fmt.Sprint(i)}, make([]byte, 100), q)
		return wonUnless(err, store.ErrSessionQuota)
	})
	if stored != 10 {
		t.Fatalf("%d uploads of 100 bytes fit a 1000-byte quota", stored)
	}
	mustUsage(t, s, "u", "s", 1000, 1000)

	for round := 0; round < 5; round++ {
		sid := fmt.Sprint("race", round)
		if err := s.CreateSession(ctx, "u", sid, nil, "t"); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := 0; i < 5; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.PutAsset(ctx, "u", sid, store.Asset{ID: fmt.Sprint(i)}, make([]byte, 10), q)
				if err != nil && !errors.Is(err, store.ErrSessionNotFound) {
					t.Error(err)
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.DeleteSession(ctx, "u", sid); err != nil {
				t.Error(err)
			}
		}()
		wg.Wait()
		// Whatever landed after the delete is deleted now.
		_, _ = s.DeleteSession(ctx, "u", sid)
		mustUsage(t, s, "u", sid, 0, 1000)
	}
}

// A held session keeps its assets through a refused delete, and the
// response's own uploads count.
func assetsOfAHeldSession(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	for i := 0; i < 3; i++ {
		if err := s.PutAsset(ctx, "u", "s", store.Asset{ID: fmt.Sprintf("a:%d", i)}, []byte("xyz"), store.AssetQuota{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DeleteSession(ctx, "u", "s"); !errors.Is(err, store.ErrSessionBusy) {
		t.Fatal(err)
	}
	mustUsage(t, s, "u", "s", 9, 9)
	finish(t, s, "u", "s", "resp_1")
	if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
		t.Fatal(found, err)
	}
	mustUsage(t, s, "u", "s", 0, 0)
}
