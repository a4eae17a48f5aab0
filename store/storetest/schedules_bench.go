package storetest

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// BenchClaimFire is the store's share of one fire of a schedule: its claim
// (the compare-and-set on the next fire time that records the fire) and
// its mark as started, from parallel claimers, each on a schedule of its
// own. Its claims/s is how many fires a second the store sustains.
func BenchClaimFire(b *testing.B, s store.Store) {
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		id := fmt.Sprintf("bench-%d", next.Add(1))
		due := time.UnixMilli(1_800_000_000_000)
		if err := s.CreateSchedule(ctx, store.ScheduleRecord{User: "u", ID: id, NextFire: due, JSON: []byte(`{}`)}, 0); err != nil {
			b.Error(err)
			return
		}
		for pb.Next() {
			after := due.Add(time.Second)
			f, ok, err := s.ClaimFire(ctx, store.ScheduleClaim{User: "u", ID: id, Due: due, Next: after, Now: due, Lease: time.Minute,
				Fire: &store.FireRecord{At: due, SessionID: "s", ResponseID: "r"}})
			if err != nil || !ok {
				b.Errorf("claim: %v %v", ok, err)
				return
			}
			if _, err := s.FireStarted(ctx, store.FireKey{User: "u", Schedule: id, Seq: f.Seq}, "", ""); err != nil {
				b.Error(err)
				return
			}
			due = after
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
}
