package redisstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// Deleting a session leaves none of its asset keys behind, only the
// user's byte counter (the contract tests the same through the
// interface).
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
		if sb, ub, _ := s.AssetUsage(ctx, "u", "s"); sb != 9 || ub != 9 {
			t.Fatalf("usage %d %d, want 9 9", sb, ub)
		}
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
		if sb, ub, _ := s.AssetUsage(ctx, "u", "s"); sb != 0 || ub != 0 {
			t.Fatalf("usage %d %d, want 0 0", sb, ub)
		}
	})
}
