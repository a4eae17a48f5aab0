// Package storetest is the store contract: one suite of tests that every
// store.Store implementation passes (memstore, redisstore on miniredis,
// redisstore on a real redis-server).
package storetest

import (
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// Harness opens stores of one implementation for the suite.
type Harness struct {
	// Open returns a fresh, empty store whose receipts (and what lasts as
	// long as receipts) are kept for receiptTTL (0: the default); it is
	// closed when the test ends.
	Open func(t testing.TB, receiptTTL time.Duration) store.Store
	// Elapse lets d pass for the store's expiry (it sleeps d; miniredis
	// also needs its clock moved).
	Elapse func(d time.Duration)
}

// Run runs every contract test against the implementation. The tests run
// one after another (Elapse moves the clock of every store a harness
// opened), and each opens its own store.
func Run(t *testing.T, h Harness) {
	t.Run("Basics", func(t *testing.T) { testBasics(t, h) })
	t.Run("Sessions", func(t *testing.T) { testSessions(t, h) })
	t.Run("Transcripts", func(t *testing.T) { testTranscripts(t, h) })
	t.Run("Responses", func(t *testing.T) { testResponses(t, h) })
	t.Run("CreatingCommits", func(t *testing.T) { testCreatingCommits(t, h) })
	t.Run("Leases", func(t *testing.T) { testLeases(t, h) })
	t.Run("SessionStatus", func(t *testing.T) { testSessionStatus(t, h) })
	t.Run("SessionResponses", func(t *testing.T) { testSessionResponses(t, h) })
	t.Run("Runs", func(t *testing.T) { testRuns(t, h) })
	t.Run("Fencing", func(t *testing.T) { testFencing(t, h) })
	t.Run("Journals", func(t *testing.T) { testJournals(t, h) })
	t.Run("Attempts", func(t *testing.T) { testAttempts(t, h) })
	t.Run("Queues", func(t *testing.T) { testQueues(t, h) })
	t.Run("Steers", func(t *testing.T) { testSteers(t, h) })
	t.Run("Replicas", func(t *testing.T) { testReplicas(t, h) })
	t.Run("LiveReplicas", func(t *testing.T) { testLiveReplicas(t, h) })
	t.Run("Events", func(t *testing.T) { testEvents(t, h) })
	t.Run("Waits", func(t *testing.T) { testWaits(t, h) })
	t.Run("WaitsHeldByNoReplica", func(t *testing.T) { testWaitsHeldByNoReplica(t, h) })
	t.Run("Assets", func(t *testing.T) { testAssets(t, h) })
	t.Run("Secrets", func(t *testing.T) { testSecrets(t, h) })
	t.Run("Hub", func(t *testing.T) { testHub(t, h) })
	t.Run("Expiry", func(t *testing.T) { testExpiry(t, h) })
	t.Run("Tasks", func(t *testing.T) { testTasks(t, h) })
	t.Run("Threads", func(t *testing.T) { testThreads(t, h) })
	t.Run("ResponseRequests", func(t *testing.T) { testResponseRequests(t, h) })
	t.Run("MCPSessions", func(t *testing.T) { testMCPSessions(t, h) })
	t.Run("EvalRuns", func(t *testing.T) { testEvalRuns(t, h) })
	t.Run("Relay", func(t *testing.T) { testRelay(t, h) })
	t.Run("Router", func(t *testing.T) { testRouter(t, h) })
	t.Run("Limits", func(t *testing.T) { testLimits(t, h) })
	t.Run("Outbox", func(t *testing.T) { testOutbox(t, h) })
	t.Run("PushConfigs", func(t *testing.T) { testPushConfigs(t, h) })
	t.Run("RelayTools", func(t *testing.T) { testRelayTools(t, h) })
	t.Run("Schedules", func(t *testing.T) { testSchedules(t, h) })
	t.Run("TriggerDeliveries", func(t *testing.T) { testTriggerDeliveries(t, h) })
	t.Run("Compactions", func(t *testing.T) { testCompactions(t, h) })
	t.Run("Memory", func(t *testing.T) { testMemory(t, h) })
	t.Run("Usage", func(t *testing.T) { testUsage(t, h) })
}
