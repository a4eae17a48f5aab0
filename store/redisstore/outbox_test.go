package redisstore

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// A delivery enqueued before users were indexed (every queue in one
// {ob:N}:due) is still claimed, and completed, after the upgrade.
func TestOutboxClaimsQueuesFromBeforeUsersWereIndexed(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := time.Now()
		tag, member := s.outboxTag("u"), outboxMember("u", "k")
		p := s.rdb.TxPipeline()
		p.HSet(ctx, tag+":d:dlv_old", "u", "u", "k", "k", "kind", "webhook", "url", "https://example.com/hook", "h", "{}",
			"b", "old", "a", 0, "n", strconv.FormatInt(now.UnixMilli(), 10), "id", "dlv_old")
		p.RPush(ctx, tag+":q:"+member, "dlv_old")
		p.ZAdd(ctx, tag+":due", redis.Z{Score: float64(now.UnixMilli()), Member: member})
		p.ZAdd(ctx, tag+":u:u", redis.Z{Score: float64(now.Add(time.Hour).UnixMilli()), Member: "dlv_old"})
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := s.ClaimDeliveries(ctx, now, time.Minute, 10, store.ClaimShare{PerUser: 4})
		if err != nil || len(got) != 1 || got[0].ID != "dlv_old" || string(got[0].Body) != "old" {
			t.Fatalf("claimed %+v, %v; want the delivery enqueued before", got, err)
		}
		if ok, err := s.CompleteDelivery(ctx, got[0]); !ok || err != nil {
			t.Fatalf("complete: %v %v", ok, err)
		}
		if n, _ := s.rdb.Exists(ctx, tag+":due").Result(); n != 0 {
			t.Errorf("the old index is still there")
		}
		if again, err := s.ClaimDeliveries(ctx, now.Add(time.Hour), time.Minute, 10, store.ClaimShare{}); err != nil || len(again) != 0 {
			t.Fatalf("claimed %+v, %v after it was completed", again, err)
		}
	})
}
