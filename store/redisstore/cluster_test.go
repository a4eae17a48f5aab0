package redisstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/storetest"
)

// TestClusterContract runs the whole store contract against a real
// three-master Redis Cluster on loopback: every script, transaction and
// pipeline of the store must keep to one slot (its keys share a hash tag),
// or Redis refuses it with CROSSSLOT. Afterwards the keys the suite wrote
// must be spread over more than one master, so that the suite did run
// against a cluster and not against one node.
func TestClusterContract(t *testing.T) {
	cluster := testutil.StartCluster(t)
	var mu sync.Mutex
	var prefixes []string
	storetest.Run(t, storetest.Harness{
		Open: func(t testing.TB, receiptTTL time.Duration) store.Store {
			prefix := testutil.Prefix(t)
			s, err := Open(context.Background(), Options{URL: cluster.URL, KeyPrefix: prefix, ReceiptTTL: receiptTTL})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := s.Client().(*redis.ClusterClient); !ok {
				t.Fatalf("the URL %s opened a %T, not a Cluster client", cluster.URL, s.Client())
			}
			mu.Lock()
			prefixes = append(prefixes, prefix)
			mu.Unlock()
			t.Cleanup(func() { s.Close() })
			return s
		},
		// A real Redis expires keys on its own clock.
		Elapse: time.Sleep,
	})
	if len(prefixes) == 0 {
		t.Fatal("the contract suite opened no store")
	}
	if t.Failed() {
		return
	}
	checkKeysSpread(t, cluster)
}

// checkKeysSpread fails the test unless at least two of the cluster's
// masters hold keys.
func checkKeysSpread(t *testing.T, cluster *testutil.Cluster) {
	t.Helper()
	holding := 0
	for _, addr := range cluster.Addrs {
		node := redis.NewClient(&redis.Options{Addr: addr})
		n, err := node.DBSize(context.Background()).Result()
		node.Close()
		if err != nil {
			t.Fatalf("DBSIZE on %s: %v", addr, err)
		}
		t.Logf("master %s holds %d keys", addr, n)
		if n > 0 {
			holding++
		}
	}
	if holding < 2 {
		t.Fatalf("only %d of %d masters hold keys: the suite did not spread over the cluster", holding, len(cluster.Addrs))
	}
}
