package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store/stores"
)

// A wake-up published while the store's subscription was broken is lost;
// so when Redis comes back every waiting listener is signalled to read
// again, and no waiting poll or turn sleeps through an item.
func TestWakeAfterRedisRestart(t *testing.T) {
	own := testutil.StartOwnRedis(t)
	ctx := context.Background()
	st, err := stores.Open(ctx, stores.Options{URL: own.URL, KeyPrefix: testutil.Prefix(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	wake, stop, err := st.ListenRelayInbox(ctx, "alice", "p")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	own.Kill()
	own.Start(t)
	select {
	case <-wake:
	case <-time.After(20 * time.Second):
		t.Fatal("the listener was not signalled after Redis restarted")
	}
}
