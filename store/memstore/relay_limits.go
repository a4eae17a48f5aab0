package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/harnest/harnest/store"
)

// The relay's rate buckets and the spacing of a participant's says
// (store.Relay).

// TakeRelayBucket counts one request in a fixed-window bucket.
func (p *relaySpace) TakeRelayBucket(_ context.Context, b store.RelayBucket, now time.Time) (bool, time.Duration, error) {
	if err := p.closed.check(); err != nil {
		return false, 0, err
	}
	if b.Window < time.Millisecond {
		return false, 0, fmt.Errorf("store: a rate bucket's window must be at least a millisecond, not %s", b.Window)
	}
	w := now.UnixMilli() / b.Window.Milliseconds()
	key := relayBucketKey{b.Owner, b.Name, b.Subject, w}
	p.mu.Lock()
	defer p.mu.Unlock()
	bucket := p.buckets[key]
	if bucket == nil {
		bucket = &relayBucket{dropAt: p.now().Add(2 * b.Window)}
		p.buckets[key] = bucket
	}
	if bucket.count++; bucket.count <= b.Limit {
		return true, 0, nil
	}
	return false, time.UnixMilli((w + 1) * b.Window.Milliseconds()).Sub(now), nil
}

// SpaceRelaySay allows one say per gap for one of owner's participants.
func (p *relaySpace) SpaceRelaySay(_ context.Context, owner, participant string, gap time.Duration, now time.Time) (bool, time.Duration, error) {
	if err := p.closed.check(); err != nil {
		return false, 0, err
	}
	if gap < time.Millisecond {
		return false, 0, fmt.Errorf("store: the gap between says must be at least a millisecond, not %s", gap)
	}
	key, now := relaySayKey{owner, participant}, relayMS(now)
	p.mu.Lock()
	defer p.mu.Unlock()
	if last := p.says[key]; last != nil && p.now().Before(last.dropAt) && now.Sub(last.at) < gap {
		return false, last.at.Add(gap).Sub(now), nil
	}
	p.says[key] = &relaySay{at: now, dropAt: p.now().Add(gap)}
	return true, 0, nil
}
