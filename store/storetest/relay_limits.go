package storetest

import (
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// The contract of rate buckets and of the spacing of says.

func testRelayBuckets(t *testing.T, st store.Store) {
	// 20 s into a minute, so the window ends in 40 s.
	now := time.UnixMilli(time.Now().UnixMilli()/60_000*60_000 + 20_000)
	b := store.RelayBucket{Owner: relayOwnerA, Name: "poll", Subject: "p:1", Limit: 3, Window: time.Minute}
	take := func() (bool, time.Duration, error) { return st.TakeRelayBucket(ctx, b, now) }
	mustTakeN(t, 3, take)
	mustWait(t, "the fourth request", 40*time.Second, take)
	other := b
	other.Subject = "p:2"
	if ok, _, _ := st.TakeRelayBucket(ctx, other, now); !ok {
		t.Fatal("another subject's bucket is spent")
	}
	server := b
	server.Owner = ""
	if ok, _, _ := st.TakeRelayBucket(ctx, server, now); !ok {
		t.Fatal("the server's bucket is the owner's")
	}
	if ok, _, _ := st.TakeRelayBucket(ctx, b, now.Add(40*time.Second)); !ok {
		t.Fatal("the next window is spent")
	}

	if ok, _, err := st.SpaceRelaySay(ctx, relayOwnerA, "p", 5*time.Second, now); err != nil || !ok {
		t.Fatalf("first say: %v %v", ok, err)
	}
	mustWait(t, "a say 2 s later", 3*time.Second, func() (bool, time.Duration, error) {
		return st.SpaceRelaySay(ctx, relayOwnerA, "p", 5*time.Second, now.Add(2*time.Second))
	})
	if ok, _, _ := st.SpaceRelaySay(ctx, relayOwnerA, "q", 5*time.Second, now.Add(2*time.Second)); !ok {
		t.Fatal("another participant's say was spaced")
	}
	if ok, _, _ := st.SpaceRelaySay(ctx, relayOwnerA, "p", 5*time.Second, now.Add(5*time.Second)); !ok {
		t.Fatal("a say after the gap was refused")
	}
}
