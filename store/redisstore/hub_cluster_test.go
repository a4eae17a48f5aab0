package redisstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/internal/testutil"
)

// TestHubFollowsItsChannelToAnotherMaster moves the slot of a replica's
// own control channel to another master of a real Cluster, as resharding
// does. Redis then ends the replica's sharded subscription; the hub must
// subscribe again on the new master, so that a message to the replica is
// delivered and not counted as lost.
func TestHubFollowsItsChannelToAnotherMaster(t *testing.T) {
	cluster := testutil.StartCluster(t)
	ctx := context.Background()
	s, err := Open(ctx, Options{URL: cluster.URL, KeyPrefix: testutil.Prefix(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	got := make(chan string, 16)
	hub, err := s.StartHub(ctx, "r1", func(p string) { got <- p })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Close() })
	sendAndReceive(t, s, got, "before the move")

	moveSlot(t, cluster, s.replicaChannel("r1"))

	// The hub subscribes again within a bounded time; until then a message
	// may count as lost (gone), never as delivered when it is not.
	deadline := time.Now().Add(10 * time.Second)
	for {
		gone, err := s.SendControl(ctx, "r1", "after the move")
		if err == nil && !gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after its slot moved, the replica's channel still says gone=%v err=%v", gone, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case p := <-got:
		if p != "after the move" {
			t.Fatalf("received %q, want the message sent after the move", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the replica received nothing after its channel's slot moved")
	}
}

// sendAndReceive sends one control message to r1 and waits for it.
func sendAndReceive(t *testing.T, s *Store, got chan string, payload string) {
	t.Helper()
	if gone, err := s.SendControl(context.Background(), "r1", payload); err != nil || gone {
		t.Fatalf("send %q: gone=%v err=%v", payload, gone, err)
	}
	select {
	case p := <-got:
		if p != payload {
			t.Fatalf("received %q, want %q", p, payload)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%q was not received within 5 s", payload)
	}
}

// moveSlot gives the slot of key (which holds no keys) to another master,
// telling every master, as redis-cli --cluster reshard does.
func moveSlot(t *testing.T, cluster *testutil.Cluster, key string) {
	t.Helper()
	ctx := context.Background()
	nodes := make([]*redis.Client, len(cluster.Addrs))
	ids := make([]string, len(cluster.Addrs))
	for i, addr := range cluster.Addrs {
		nodes[i] = redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { nodes[i].Close() })
		id, err := nodes[i].Do(ctx, "cluster", "myid").Text()
		if err != nil {
			t.Fatalf("CLUSTER MYID on %s: %v", addr, err)
		}
		ids[i] = id
	}
	slot, err := nodes[0].ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	from := -1
	for i, node := range nodes {
		n, err := node.ClusterCountKeysInSlot(ctx, int(slot)).Result()
		if err == nil && n == 0 && ownsSlot(t, node, ids[i], slot) {
			from = i
		}
	}
	if from < 0 {
		t.Fatalf("no master owns slot %d empty", slot)
	}
	to := (from + 1) % len(nodes)
	run := func(node int, args ...any) {
		if err := nodes[node].Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%v on %s: %v", args, cluster.Addrs[node], err)
		}
	}
	run(to, "cluster", "setslot", slot, "importing", ids[from])
	run(from, "cluster", "setslot", slot, "migrating", ids[to])
	run(to, "cluster", "setslot", slot, "node", ids[to]) // first on the new owner: it bumps its epoch
	for i := range nodes {
		if i != to {
			run(i, "cluster", "setslot", slot, "node", ids[to])
		}
	}
	t.Logf("moved slot %d of %s from %s to %s", slot, key, cluster.Addrs[from], cluster.Addrs[to])
}

// ownsSlot reports whether the node with the given ID serves slot.
func ownsSlot(t *testing.T, node *redis.Client, id string, slot int64) bool {
	t.Helper()
	ranges, err := node.ClusterSlots(context.Background()).Result()
	if err != nil {
		t.Fatal(fmt.Errorf("CLUSTER SLOTS: %w", err))
	}
	for _, r := range ranges {
		if int64(r.Start) <= slot && slot <= int64(r.End) && len(r.Nodes) > 0 {
			return r.Nodes[0].ID == id
		}
	}
	return false
}
