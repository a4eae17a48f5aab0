package redisstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

func mustUsage(t *testing.T, s *Store, user, session string, wantSession, wantUser int64) {
	t.Helper()
	sb, ub, err := s.AssetUsage(context.Background(), user, session)
	if err != nil {
		t.Fatal(err)
	}
	if sb != wantSession || ub != wantUser {
		t.Fatalf("usage of %s/%s: session %d user %d, want %d and %d", user, session, sb, ub, wantSession, wantUser)
	}
}

func TestAssetLifecycle(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
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
		mustUsage(t, s, "u", "s", 1000, 1000)
		got, found, err := s.GetAsset(ctx, "u", "s", "asset_1")
		if err != nil || !found || got.Size != 1000 || got.MediaType != "image/png" || string(got.Info) != `{"width":1}` || got.CreatedAt != "t" {
			t.Fatalf("get: %+v %v %v", got, found, err)
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
		mustUsage(t, s, "u", "s", 0, 0)
	})
}

func TestAssetQuotas(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
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
		// Deleting a session frees its assets' bytes for the user.
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
		// Other users have their own quota.
		if err := s.CreateSession(ctx, "v", "s1", nil, "t"); err != nil {
			t.Fatal(err)
		}
		if err := s.PutAsset(ctx, "v", "s1", store.Asset{ID: "a"}, make([]byte, 250), q); err != nil {
			t.Fatal(err)
		}
	})
}

func TestDeleteSessionRemovesAssetKeys(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if err := s.PutAsset(ctx, "u", "s", store.Asset{ID: fmt.Sprintf("a:%d", i)}, []byte("xyz"), store.AssetQuota{}); err != nil {
				t.Fatal(err)
			}
		}
		// A held session keeps its assets.
		if err := s.rdb.Set(ctx, s.sessionKeys("u", "s").lease, "resp", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteSession(ctx, "u", "s"); !errors.Is(err, store.ErrSessionBusy) {
			t.Fatal(err)
		}
		mustUsage(t, s, "u", "s", 9, 9)
		s.rdb.Del(ctx, s.sessionKeys("u", "s").lease)
		if found, err := s.DeleteSession(ctx, "u", "s"); !found || err != nil {
			t.Fatal(found, err)
		}
		keys, err := s.rdb.Keys(ctx, s.prefix+"*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k != s.userAssetBytesKey("u") {
				t.Errorf("key %q left after deleting the session", k)
			}
		}
		mustUsage(t, s, "u", "s", 0, 0)
	})
}

// Concurrent uploads to one session never pass its quota together, and
// uploads racing a session delete leave no asset behind and no bytes
// counted.
func TestAssetConcurrency(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
			t.Fatal(err)
		}
		q := store.AssetQuota{Session: 1000, User: 1 << 20}
		var wg sync.WaitGroup
		var mu sync.Mutex
		stored := 0
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.PutAsset(ctx, "u", "s", store.Asset{ID: fmt.Sprint(i)}, make([]byte, 100), q)
				if err == nil {
					mu.Lock()
					stored++
					mu.Unlock()
				} else if !errors.Is(err, store.ErrSessionQuota) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
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
	})
}
