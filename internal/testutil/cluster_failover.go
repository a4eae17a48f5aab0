package testutil

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A failover test on a cluster with replicas (StartClusterWith, Replicas
// 1) finds the master of a key (MasterFor), kills it (Kill) and waits until
// the cluster has promoted its replica (WaitFailedOver).

// MasterFor is the address of the master that serves key's slot now, as
// the first live node answers.
func (c *Cluster) MasterFor(t testing.TB, key string) string {
	t.Helper()
	addr := c.live(t)
	text, err := clusterCommand(addr, "CLUSTER", "KEYSLOT", key)
	if err != nil {
		t.Fatalf("cluster: CLUSTER KEYSLOT on %s: %v", addr, err)
	}
	slot, err := strconv.Atoi(text)
	if err != nil {
		t.Fatalf("cluster: CLUSTER KEYSLOT on %s answered %q", addr, text)
	}
	nodes, err := clusterNodes(addr)
	if err != nil {
		t.Fatalf("cluster: %v", err)
	}
	for _, n := range nodes {
		if n.master && !n.failed && n.serves(slot) {
			return n.addr
		}
	}
	t.Fatalf("cluster: no master serves slot %d of %q, says %s", slot, key, addr)
	return ""
}

// Kill kills the master at addr with SIGKILL, as a crash does (it answers
// nothing more and its connections are reset), and waits for the process
// to end. The cluster notices after its node timeout.
func (c *Cluster) Kill(t testing.TB, addr string) {
	t.Helper()
	proc := c.procs[addr]
	if proc == nil || proc.killed {
		t.Fatalf("cluster: no running node at %s", addr)
	}
	nodes, err := clusterNodes(addr)
	if err != nil {
		t.Fatalf("cluster: %v", err)
	}
	i := slices.IndexFunc(nodes, func(n clusterNode) bool { return n.addr == addr })
	if i < 0 || !nodes[i].master || len(nodes[i].slots) == 0 {
		t.Fatalf("cluster: %s is not a master that serves slots; WaitFailedOver needs one", addr)
	}
	proc.firstSlot = nodes[i].slots[0][0]
	if err := proc.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("cluster: kill the node at %s: %v", addr, err)
	}
	_ = proc.cmd.Wait()
	proc.killed = true
}

// WaitFailedOver waits, within the given time, until every live node says
// the cluster is ok (cluster_state:ok, every slot served) and that the
// killed master dead is failed and serves no slot: a replica has taken its
// slots. It returns the address of the master that serves them now.
func (c *Cluster) WaitFailedOver(t testing.TB, dead string, within time.Duration) (promoted string) {
	t.Helper()
	deadline := time.Now().Add(within)
	why := "not checked yet"
	for time.Now().Before(deadline) {
		promoted, why = c.failedOver(dead)
		if why == "" {
			return promoted
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("cluster: the killed master %s has not failed over within %s: %s", dead, within, why)
	return ""
}

// failedOver checks every live node's view of the failover of dead: the
// new master's address, or why not yet.
func (c *Cluster) failedOver(dead string) (promoted, why string) {
	for _, addr := range c.Addrs {
		if c.procs[addr].killed {
			continue
		}
		info, err := clusterCommand(addr, "CLUSTER", "INFO")
		if err != nil {
			return "", fmt.Sprintf("CLUSTER INFO on %s: %v", addr, err)
		}
		if infoField(info, "cluster_state") != "ok" || infoField(info, "cluster_slots_ok") != "16384" {
			return "", fmt.Sprintf("%s says cluster_state:%s cluster_slots_ok:%s", addr, infoField(info, "cluster_state"), infoField(info, "cluster_slots_ok"))
		}
		nodes, err := clusterNodes(addr)
		if err != nil {
			return "", err.Error()
		}
		i := slices.IndexFunc(nodes, func(n clusterNode) bool { return n.addr == dead })
		if i < 0 {
			return "", fmt.Sprintf("%s does not know %s", addr, dead)
		}
		if !nodes[i].failed || len(nodes[i].slots) > 0 {
			return "", fmt.Sprintf("%s says %s is %s and serves %v", addr, dead, nodes[i].flags, nodes[i].slots)
		}
		owner := slices.IndexFunc(nodes, func(n clusterNode) bool { return n.master && !n.failed && n.serves(c.procs[dead].firstSlot) })
		if owner < 0 {
			return "", fmt.Sprintf("%s names no live master of slot %d, which %s served", addr, c.procs[dead].firstSlot, dead)
		}
		if promoted != "" && promoted != nodes[owner].addr {
			return "", fmt.Sprintf("nodes disagree on the new master: %s or %s", promoted, nodes[owner].addr)
		}
		promoted = nodes[owner].addr
	}
	if promoted == "" {
		return "", "no live node names a new master"
	}
	return promoted, ""
}

// clusterNode is one line of CLUSTER NODES.
type clusterNode struct {
	id, addr, flags string
	master, failed  bool
	slots           [][2]int // the ranges it serves, first and last slot
}

// serves reports whether n serves slot.
func (n clusterNode) serves(slot int) bool {
	for _, r := range n.slots {
		if r[0] <= slot && slot <= r[1] {
			return true
		}
	}
	return false
}

// clusterNodes asks the node at addr for CLUSTER NODES and parses it.
func clusterNodes(addr string) ([]clusterNode, error) {
	text, err := clusterCommand(addr, "CLUSTER", "NODES")
	if err != nil {
		return nil, fmt.Errorf("CLUSTER NODES on %s: %w", addr, err)
	}
	var nodes []clusterNode
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		// <id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent> <pong-recv> <config-epoch> <link-state> <slot> ...
		f := strings.Fields(line)
		if len(f) < 8 {
			return nil, fmt.Errorf("CLUSTER NODES on %s: unexpected line %q", addr, line)
		}
		n := clusterNode{id: f[0], flags: f[2]}
		n.addr, _, _ = strings.Cut(f[1], "@")
		for flag := range strings.SplitSeq(f[2], ",") {
			switch flag {
			case "master":
				n.master = true
			case "fail":
				n.failed = true
			}
		}
		for _, r := range f[8:] {
			if strings.HasPrefix(r, "[") {
				continue // a slot being imported or migrated
			}
			first, last, isRange := strings.Cut(r, "-")
			if !isRange {
				last = first
			}
			a, err1 := strconv.Atoi(first)
			b, err2 := strconv.Atoi(last)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("CLUSTER NODES on %s: unexpected slot range %q", addr, r)
			}
			n.slots = append(n.slots, [2]int{a, b})
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// live is the address of the first node that was not killed.
func (c *Cluster) live(t testing.TB) string {
	t.Helper()
	for _, addr := range c.Addrs {
		if !c.procs[addr].killed {
			return addr
		}
	}
	t.Fatal("cluster: every node was killed")
	return ""
}

// WaitReplicated waits, within the given time, until the replica of the
// master at addr has acknowledged everything the master had written when
// it was called (INFO replication: the replica's offset reaches the
// master's), so that a kill right after loses only later writes. On a
// busy machine a replica can lag by seconds; a failover test that means
// to measure recovery, not asynchronous replication, calls it first.
func (c *Cluster) WaitReplicated(t testing.TB, addr string, within time.Duration) {
	t.Helper()
	info, err := clusterCommand(addr, "INFO", "replication")
	if err != nil {
		t.Fatalf("cluster: INFO replication on %s: %v", addr, err)
	}
	target, err := strconv.ParseInt(infoField(info, "master_repl_offset"), 10, 64)
	if err != nil {
		t.Fatalf("cluster: %s reports no master_repl_offset", addr)
	}
	deadline := time.Now().Add(within)
	for {
		info, err = clusterCommand(addr, "INFO", "replication")
		if err == nil && replicaOffset(infoField(info, "slave0")) >= target {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster: the replica of %s has not reached offset %d within %s (%s)", addr, target, within, infoField(info, "slave0"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// replicaOffset reads offset=N from an INFO replication slaveN line
// (ip=…,port=…,state=online,offset=N,lag=…); -1 when there is none.
func replicaOffset(line string) int64 {
	for field := range strings.SplitSeq(line, ",") {
		if v, ok := strings.CutPrefix(field, "offset="); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}
