package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testOutbox is the contract of the outbox: order per queue, claims with
// leases, retries, the bound per user and expiry.
func testOutbox(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(*testing.T, store.Store){
		"RoundTrip":        testOutboxRoundTrip,
		"OrderPerQueue":    testOutboxOrder,
		"LeaseLapses":      testOutboxLease,
		"Retry":            testOutboxRetry,
		"BoundPerUser":     testOutboxBound,
		"EscapedNames":     testOutboxEscaped,
		"ManyQueuesClaims": testOutboxMany,
		"SharePerUser":     testOutboxShare,
		"ShareBehindMany":  testOutboxShareBehindMany,
		"Release":          testOutboxRelease,
	})
	t.Run("Expiry", func(t *testing.T) { testOutboxExpiry(t, h) })
}

func mustEnqueue(t *testing.T, st store.Store, d store.Delivery, now time.Time) string {
	t.Helper()
	id, err := st.EnqueueDelivery(ctx, d, 0, now)
	if err != nil {
		t.Fatalf("EnqueueDelivery(%s/%s): %v", d.User, d.Key, err)
	}
	return id
}

func mustClaim(t *testing.T, st store.Store, now time.Time, lease time.Duration, limit int) []store.Delivery {
	t.Helper()
	ds, err := st.ClaimDeliveries(ctx, now, lease, limit, store.ClaimShare{})
	if err != nil {
		t.Fatalf("ClaimDeliveries: %v", err)
	}
	return ds
}

func mustComplete(t *testing.T, st store.Store, d store.Delivery) bool {
	t.Helper()
	ok, err := st.CompleteDelivery(ctx, d)
	if err != nil {
		t.Fatalf("CompleteDelivery(%s): %v", d.ID, err)
	}
	return ok
}

// bodies lists the claimed deliveries' bodies, sorted.
func bodies(ds []store.Delivery) []string {
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		out = append(out, string(d.Body))
	}
	slices.Sort(out)
	return out
}

func testOutboxRoundTrip(t *testing.T, st store.Store) {
	now := time.Now()
	d := store.Delivery{User: "u", Key: "task1/cfg", Kind: "a2a.push", URL: "https://example.com/hook",
		Headers: map[string]string{"X-A2A-Notification-Token": "tok"}, Body: []byte(`{"a":1}`)}
	id := mustEnqueue(t, st, d, now)
	if id == "" {
		t.Fatal("EnqueueDelivery made no ID")
	}
	got := mustClaim(t, st, now, time.Minute, 10)
	if len(got) != 1 {
		t.Fatalf("claimed %d deliveries, want 1", len(got))
	}
	c := got[0]
	if c.ID != id || c.User != "u" || c.Key != d.Key || c.Kind != d.Kind || c.URL != d.URL || string(c.Body) != `{"a":1}` ||
		c.Headers["X-A2A-Notification-Token"] != "tok" || c.Attempts != 1 || c.Claim == "" || c.LastError != "" {
		t.Fatalf("claimed %+v, want what was enqueued with one attempt and a claim", c)
	}
	if !mustComplete(t, st, c) {
		t.Fatal("CompleteDelivery lost a live claim")
	}
	if mustComplete(t, st, c) {
		t.Fatal("CompleteDelivery completed a delivery twice")
	}
	if got := mustClaim(t, st, now.Add(time.Hour), time.Minute, 10); len(got) != 0 {
		t.Fatalf("claimed %d deliveries after completing the only one", len(got))
	}
	// A delivery due later is not claimed before then.
	mustEnqueue(t, st, store.Delivery{User: "u", Key: "k", Body: []byte("later"), NextAttempt: now.Add(time.Minute)}, now)
	if got := mustClaim(t, st, now, time.Minute, 10); len(got) != 0 {
		t.Fatalf("claimed %d deliveries before they were due", len(got))
	}
	if got := mustClaim(t, st, now.Add(time.Minute), time.Minute, 10); len(got) != 1 {
		t.Fatalf("claimed %d deliveries once due, want 1", len(got))
	}
}

func testOutboxOrder(t *testing.T, st store.Store) {
	now := time.Now()
	for i := range 3 {
		mustEnqueue(t, st, store.Delivery{User: "u", Key: "a", Body: fmt.Appendf(nil, "a%d", i)}, now)
	}
	mustEnqueue(t, st, store.Delivery{User: "u", Key: "b", Body: []byte("b0")}, now)
	mustEnqueue(t, st, store.Delivery{User: "v", Key: "a", Body: []byte("v0")}, now)
	got := mustClaim(t, st, now, time.Minute, 10)
	if b := bodies(got); !slices.Equal(b, []string{"a0", "b0", "v0"}) {
		t.Fatalf("first claims %v, want the head of each queue [a0 b0 v0]", b)
	}
	if again := mustClaim(t, st, now, time.Minute, 10); len(again) != 0 {
		t.Fatalf("claimed %v while every head is held", bodies(again))
	}
	for want := 1; want < 3; want++ {
		for _, d := range got {
			if string(d.Body) == fmt.Sprintf("a%d", want-1) && !mustComplete(t, st, d) {
				t.Fatalf("completing %s lost its claim", d.Body)
			}
		}
		got = mustClaim(t, st, now, time.Minute, 10)
		if b := bodies(got); !slices.Equal(b, []string{fmt.Sprintf("a%d", want)}) {
			t.Fatalf("after completing a%d: claimed %v, want [a%d]", want-1, b, want)
		}
	}
}

func testOutboxLease(t *testing.T, st store.Store) {
	now := time.Now()
	mustEnqueue(t, st, store.Delivery{User: "u", Key: "k", Body: []byte("x")}, now)
	mustEnqueue(t, st, store.Delivery{User: "u", Key: "k", Body: []byte("y")}, now)
	first := mustClaim(t, st, now, time.Second, 10)
	if len(first) != 1 {
		t.Fatalf("claimed %d, want 1", len(first))
	}
	if got := mustClaim(t, st, now.Add(999*time.Millisecond), time.Second, 10); len(got) != 0 {
		t.Fatalf("claimed %v before the lease ended", bodies(got))
	}
	second := mustClaim(t, st, now.Add(time.Second+time.Millisecond), time.Second, 10)
	if len(second) != 1 || string(second[0].Body) != "x" || second[0].Attempts != 2 || second[0].Claim == first[0].Claim {
		t.Fatalf("after the lease: claimed %+v, want x again, attempt 2, a new claim", second)
	}
	if mustComplete(t, st, first[0]) {
		t.Fatal("the claim that lapsed and was taken again still completed")
	}
	if ok, err := st.RetryDelivery(ctx, first[0], now, "late"); err != nil || ok {
		t.Fatalf("RetryDelivery with a lost claim = %v, %v; want false", ok, err)
	}
	if !mustComplete(t, st, second[0]) {
		t.Fatal("the live claim did not complete")
	}
	if got := mustClaim(t, st, now.Add(2*time.Second), time.Second, 10); len(got) != 1 || string(got[0].Body) != "y" {
		t.Fatalf("after x: claimed %v, want [y]", bodies(got))
	}
}

func testOutboxRetry(t *testing.T, st store.Store) {
	now := time.Now()
	mustEnqueue(t, st, store.Delivery{User: "u", Key: "k", Body: []byte("x")}, now)
	mustEnqueue(t, st, store.Delivery{User: "u", Key: "k", Body: []byte("y")}, now)
	got := mustClaim(t, st, now, time.Minute, 10)
	ok, err := st.RetryDelivery(ctx, got[0], now.Add(5*time.Second), "HTTP 500")
	if err != nil || !ok {
		t.Fatalf("RetryDelivery = %v, %v; want true", ok, err)
	}
	if got := mustClaim(t, st, now.Add(4*time.Second), time.Minute, 10); len(got) != 0 {
		t.Fatalf("claimed %v before the retry was due (y must wait behind x)", bodies(got))
	}
	again := mustClaim(t, st, now.Add(5*time.Second), time.Minute, 10)
	if len(again) != 1 || string(again[0].Body) != "x" || again[0].Attempts != 2 || again[0].LastError != "HTTP 500" {
		t.Fatalf("retried claim %+v, want x with attempt 2 and its last error", again)
	}
	if mustComplete(t, st, got[0]) {
		t.Fatal("a claim given back completed")
	}
}

func testOutboxBound(t *testing.T, st store.Store) {
	now := time.Now()
	for i := range 2 {
		if _, err := st.EnqueueDelivery(ctx, store.Delivery{User: "u", Key: fmt.Sprint(i), Body: []byte("x")}, 2, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.EnqueueDelivery(ctx, store.Delivery{User: "u", Key: "k", Body: []byte("x")}, 2, now); !errors.Is(err, store.ErrOutboxFull) {
		t.Fatalf("a third delivery with a bound of 2: %v, want ErrOutboxFull", err)
	}
	if _, err := st.EnqueueDelivery(ctx, store.Delivery{User: "other", Key: "k", Body: []byte("x")}, 2, now); err != nil {
		t.Fatalf("another user's delivery: %v", err)
	}
	got := mustClaim(t, st, now, time.Minute, 10)
	for _, d := range got {
		if d.User == "u" {
			mustComplete(t, st, d)
			break
		}
	}
	if _, err := st.EnqueueDelivery(ctx, store.Delivery{User: "u", Key: "k", Body: []byte("x")}, 2, now); err != nil {
		t.Fatalf("after one was completed: %v", err)
	}
}

func testOutboxEscaped(t *testing.T, st store.Store) {
	now := time.Now()
	mustEnqueue(t, st, store.Delivery{ID: "id:{1}%", User: "u:{x}", Key: "t:1", Body: []byte("a")}, now)
	mustEnqueue(t, st, store.Delivery{User: "u", Key: "{x}:t:1", Body: []byte("b")}, now)
	got := mustClaim(t, st, now, time.Minute, 10)
	if b := bodies(got); !slices.Equal(b, []string{"a", "b"}) {
		t.Fatalf("claimed %v, want two separate queues [a b]", b)
	}
	for _, d := range got {
		if string(d.Body) == "a" && (d.ID != "id:{1}%" || d.User != "u:{x}" || d.Key != "t:1") {
			t.Fatalf("claimed %+v, want its names as given", d)
		}
		if !mustComplete(t, st, d) {
			t.Fatalf("completing %s lost its claim", d.Body)
		}
	}
}

func testOutboxMany(t *testing.T, st store.Store) {
	now := time.Now()
	for i := range 30 {
		mustEnqueue(t, st, store.Delivery{User: fmt.Sprintf("user%d", i), Key: "k", Body: fmt.Appendf(nil, "%d", i)}, now)
	}
	seen := map[string]bool{}
	for range 10 {
		got := mustClaim(t, st, now, time.Minute, 7)
		if len(got) > 7 {
			t.Fatalf("claimed %d with a limit of 7", len(got))
		}
		for _, d := range got {
			if seen[string(d.Body)] {
				t.Fatalf("delivery %s claimed twice under a live lease", d.Body)
			}
			seen[string(d.Body)] = true
		}
	}
	if len(seen) != 30 {
		t.Fatalf("claimed %d distinct deliveries, want all 30", len(seen))
	}
}

func testOutboxExpiry(t *testing.T, h Harness) {
	const ttl = time.Second
	st := h.Open(t, ttl)
	if _, err := st.EnqueueDelivery(ctx, store.Delivery{User: "u", Key: "k", Body: []byte("old")}, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	h.Elapse(1200 * time.Millisecond)
	if _, err := st.EnqueueDelivery(ctx, store.Delivery{User: "u", Key: "k", Body: []byte("new")}, 1, time.Now()); err != nil {
		t.Fatalf("after the first expired, the bound still counts it: %v", err)
	}
	got := mustClaim(t, st, time.Now(), time.Minute, 10)
	if b := bodies(got); !slices.Equal(b, []string{"new"}) {
		t.Fatalf("claimed %v after expiry, want [new]", b)
	}
}

func mustClaimShared(t *testing.T, st store.Store, now time.Time, limit int, share store.ClaimShare) []store.Delivery {
	t.Helper()
	ds, err := st.ClaimDeliveries(ctx, now, time.Minute, limit, share)
	if err != nil {
		t.Fatalf("ClaimDeliveries: %v", err)
	}
	return ds
}

// users counts the claimed deliveries per user.
func users(ds []store.Delivery) map[string]int {
	out := map[string]int{}
	for _, d := range ds {
		out[d.User]++
	}
	return out
}

// testOutboxShare: a claim takes at most a user's share, less what they
// hold; the rest of the limit goes to other users.
func testOutboxShare(t *testing.T, st store.Store) {
	now := time.Now()
	for i := range 10 {
		mustEnqueue(t, st, store.Delivery{User: "a:1", Key: fmt.Sprintf("k%d", i), Body: fmt.Appendf(nil, "a%d", i)}, now.Add(-time.Minute))
	}
	mustEnqueue(t, st, store.Delivery{User: "b", Key: "k", Body: []byte("b")}, now)
	got := users(mustClaimShared(t, st, now, 4, store.ClaimShare{PerUser: 2}))
	if got["a:1"] != 2 || got["b"] != 1 || len(got) != 2 {
		t.Fatalf("claimed %v; want 2 of a's (its share) and b's one", got)
	}
	if got := mustClaimShared(t, st, now, 4, store.ClaimShare{PerUser: 2, Held: map[string]int{"a:1": 2}}); len(got) != 0 {
		t.Fatalf("claimed %v of a user who holds their share", bodies(got))
	}
	if got := users(mustClaimShared(t, st, now, 4, store.ClaimShare{PerUser: 3, Held: map[string]int{"a:1": 2}})); got["a:1"] != 1 || len(got) != 1 {
		t.Fatalf("claimed %v; want the one more of a's that its share leaves room for", got)
	}
	if got := users(mustClaimShared(t, st, now, 100, store.ClaimShare{})); got["a:1"] != 7 {
		t.Fatalf("claimed %v without a share; want a's 7 left", got)
	}
}

// testOutboxShareBehindMany: however many deliveries one user has due
// before another's, a claim with room reaches the other's.
func testOutboxShareBehindMany(t *testing.T, st store.Store) {
	now := time.Now()
	for i := range 300 {
		mustEnqueue(t, st, store.Delivery{User: "busy", Key: fmt.Sprintf("k%d", i), Body: []byte("busy")}, now.Add(-time.Minute))
	}
	share := store.ClaimShare{PerUser: 8}
	first := users(mustClaimShared(t, st, now, 10, share))
	if first["busy"] != 8 || len(first) != 1 {
		t.Fatalf("first claim %v; want busy's share", first)
	}
	mustEnqueue(t, st, store.Delivery{User: "quiet", Key: "k", Body: []byte("quiet")}, now)
	share.Held = map[string]int{"busy": 8}
	got := mustClaimShared(t, st, now, 1, share)
	if b := bodies(got); !slices.Equal(b, []string{"quiet"}) {
		t.Fatalf("claimed %v while busy holds its share; want quiet's", b)
	}
}

// testOutboxRelease: a delivery given back unsent is due again at the
// time given, its attempt not counted; a lost claim changes nothing.
func testOutboxRelease(t *testing.T, st store.Store) {
	now := time.Now()
	mustEnqueue(t, st, store.Delivery{User: "u", Key: "k", Body: []byte("one")}, now)
	got := mustClaim(t, st, now, time.Minute, 10)
	if len(got) != 1 {
		t.Fatalf("claimed %d", len(got))
	}
	ok, err := st.ReleaseDelivery(ctx, got[0], now.Add(10*time.Second))
	if err != nil || !ok {
		t.Fatalf("ReleaseDelivery: %v %v", ok, err)
	}
	if again, err := st.ReleaseDelivery(ctx, got[0], now); err != nil || again {
		t.Fatalf("released a delivery twice: %v %v", again, err)
	}
	if early := mustClaim(t, st, now.Add(5*time.Second), time.Minute, 10); len(early) != 0 {
		t.Fatalf("claimed %v before the time it was given back for", bodies(early))
	}
	later := mustClaim(t, st, now.Add(11*time.Second), time.Minute, 10)
	if len(later) != 1 || later[0].Attempts != 1 || later[0].ID != got[0].ID {
		t.Fatalf("claimed %+v after the release; want the same delivery at its first attempt", later)
	}
}
