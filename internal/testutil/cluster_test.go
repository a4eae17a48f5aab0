package testutil

import (
	"testing"
	"time"
)

// TestClusterFailsOver starts three masters with a replica each, kills the
// master of a key and waits until its replica serves the key's slot.
func TestClusterFailsOver(t *testing.T) {
	c := StartClusterWith(t, ClusterOptions{Replicas: 1, NodeTimeout: time.Second})
	if len(c.Addrs) != 6 {
		t.Fatalf("%d nodes, want 6", len(c.Addrs))
	}
	dead := c.MasterFor(t, "some key")
	start := time.Now()
	c.Kill(t, dead)
	promoted := c.WaitFailedOver(t, dead, 20*time.Second)
	t.Logf("killed %s; %s serves its slots %s later", dead, promoted, time.Since(start).Round(time.Millisecond))
	if promoted == dead {
		t.Fatalf("the killed master %s still serves its slots", dead)
	}
	if got := c.MasterFor(t, "some key"); got != promoted {
		t.Fatalf("the key's master is %s, want the promoted %s", got, promoted)
	}
}
