package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// The contract of rate buckets and of the spacing of says.

func testRelayBuckets(t *testing.T, h Harness) {
	st, ctx := h.Open(t, 0), context.Background()
	// 20 s into a minute, so the window ends in 40 s.
	now := time.UnixMilli(time.Now().UnixMilli()/60_000*60_000 + 20_000)
	b := store.RelayBucket{Owner: relayOwnerA, Name: "poll", Subject: "p:1", Limit: 3, Window: time.Minute}
	for i := 0; i < 3; i++ {
		if ok, _, err := st.TakeRelayBucket(ctx, b, now); err != nil || !ok {
			t.Fatalf("request %d: %v %v", i+1, ok, err)
		}
	}
	ok, wait, err := st.TakeRelayBucket(ctx, b, now)
	if err != nil || ok || wait != 40*time.Second {
		t.Fatalf("the fourth request: %v, wait %v, %v; want refused for 40s", ok, wait, err)
	}
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

	ok, wait, err = st.SpaceRelaySay(ctx, relayOwnerA, "p", 5*time.Second, now)
	if err != nil || !ok {
		t.Fatalf("first say: %v %v", ok, err)
	}
	ok, wait, _ = st.SpaceRelaySay(ctx, relayOwnerA, "p", 5*time.Second, now.Add(2*time.Second))
	if ok || wait != 3*time.Second {
		t.Fatalf("a say 2 s later: %v, wait %v; want refused for 3s", ok, wait)
	}
	if ok, _, _ := st.SpaceRelaySay(ctx, relayOwnerA, "q", 5*time.Second, now.Add(2*time.Second)); !ok {
		t.Fatal("another participant's say was spaced")
	}
	if ok, _, _ := st.SpaceRelaySay(ctx, relayOwnerA, "p", 5*time.Second, now.Add(5*time.Second)); !ok {
		t.Fatal("a say after the gap was refused")
	}
}
