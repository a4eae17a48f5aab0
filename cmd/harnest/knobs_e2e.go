//go:build e2eknobs

package main

import (
	"os"
	"time"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/schedule"
)

// Built with -tags e2eknobs (the end-to-end tests' binary, e2e_test.go),
// harnest takes the expiry of approvals and client tools from
// HARNEST_E2E_WAIT_TTL (a Go duration), so that a test can see a wait
// expire. Other builds have no such knob.
func init() {
	// HARNEST_E2E_SCHEDULE_HOLD (a Go duration) is how long a claimed fire
	// is held before another replica takes it; the scheduler then looks
	// every 50 ms.
	if hold, err := time.ParseDuration(os.Getenv("HARNEST_E2E_SCHEDULE_HOLD")); err == nil && hold > 0 {
		tuneSchedules = func(o *schedule.Options) { o.Hold, o.Tick = hold, 50*time.Millisecond }
	}
	ttl, err := time.ParseDuration(os.Getenv("HARNEST_E2E_WAIT_TTL"))
	if err != nil || ttl <= 0 {
		return
	}
	tuneRuntime = func(o *runtime.Options) { o.ApprovalTTL, o.ClientToolTTL = ttl, ttl }
}
