package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// bucketScript counts one request in a bucket that lasts two windows;
// 0 when the bucket was already spent.
var bucketScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then return 0 end
return 1
`)

// TakeRelayBucket counts one request in a fixed-window bucket shared by
// every replica.
func (s *Store) TakeRelayBucket(ctx context.Context, b store.RelayBucket, now time.Time) (bool, time.Duration, error) {
	if b.Window < time.Millisecond {
		return false, 0, fmt.Errorf("store: a rate bucket's window must be at least a millisecond, not %s", b.Window)
	}
	w := now.UnixMilli() / b.Window.Milliseconds()
	ok, err := bucketScript.Run(ctx, s.rdb, []string{s.relayBucketKey(b.Owner, b.Name, b.Subject, w)},
		b.Limit, (2 * b.Window).Milliseconds()).Int()
	if err != nil {
		return false, 0, err
	}
	if ok == 1 {
		return true, 0, nil
	}
	end := time.UnixMilli((w + 1) * b.Window.Milliseconds())
	return false, end.Sub(now), nil
}

// spacingScript allows one event per gap: 0, or the milliseconds to wait.
var spacingScript = redis.NewScript(`
local last = redis.call('GET', KEYS[1])
if last and tonumber(ARGV[1]) - tonumber(last) < tonumber(ARGV[2]) then
  return tonumber(last) + tonumber(ARGV[2]) - tonumber(ARGV[1])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 0
`)

// SpaceRelaySay allows one say per gap for one of owner's participants.
func (s *Store) SpaceRelaySay(ctx context.Context, owner, participant string, gap time.Duration, now time.Time) (bool, time.Duration, error) {
	if gap < time.Millisecond {
		return false, 0, fmt.Errorf("store: the gap between says must be at least a millisecond, not %s", gap)
	}
	wait, err := spacingScript.Run(ctx, s.rdb, []string{s.relaySayKey(owner, participant)},
		relayMS(now), gap.Milliseconds()).Int64()
	if err != nil {
		return false, 0, err
	}
	return wait == 0, time.Duration(wait) * time.Millisecond, nil
}
