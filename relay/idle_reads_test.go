package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
	"github.com/harnest/harnest/store/stores"
)

// countingStore counts every call of the store's Relay operations. The
// relay holds the store as a store.Relay (Relay.st) and can call nothing
// else, so these counts are every store call the relay makes.
type countingStore struct {
	store.Store
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingStore) count(op string) {
	c.mu.Lock()
	c.calls[op]++
	c.mu.Unlock()
}

func (c *countingStore) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.calls)
}

func (c *countingStore) CreatePairingCode(ctx context.Context, p store.PairingCode, now time.Time) error {
	c.count("CreatePairingCode")
	return c.Store.CreatePairingCode(ctx, p, now)
}

func (c *countingStore) ExchangePairingCode(ctx context.Context, p store.Pairing) (store.RelayParticipant, error) {
	c.count("ExchangePairingCode")
	return c.Store.ExchangePairingCode(ctx, p)
}

func (c *countingStore) ParticipantByToken(ctx context.Context, tokenHash string, now time.Time) (store.RelayParticipant, bool, error) {
	c.count("ParticipantByToken")
	return c.Store.ParticipantByToken(ctx, tokenHash, now)
}

func (c *countingStore) GetParticipant(ctx context.Context, owner, id string, now time.Time) (store.RelayParticipant, bool, error) {
	c.count("GetParticipant")
	return c.Store.GetParticipant(ctx, owner, id, now)
}

func (c *countingStore) ListParticipants(ctx context.Context, owner string, now time.Time) ([]store.RelayParticipant, error) {
	c.count("ListParticipants")
	return c.Store.ListParticipants(ctx, owner, now)
}

func (c *countingStore) SetParticipantState(ctx context.Context, owner, id, state string, now time.Time) (bool, error) {
	c.count("SetParticipantState")
	return c.Store.SetParticipantState(ctx, owner, id, state, now)
}

func (c *countingStore) DisconnectParticipant(ctx context.Context, owner, id string, now time.Time) (bool, error) {
	c.count("DisconnectParticipant")
	return c.Store.DisconnectParticipant(ctx, owner, id, now)
}

func (c *countingStore) EnqueueRelayItem(ctx context.Context, owner string, it store.RelayItem, maxPending int) error {
	c.count("EnqueueRelayItem")
	return c.Store.EnqueueRelayItem(ctx, owner, it, maxPending)
}

func (c *countingStore) GetRelayItem(ctx context.Context, owner, id string) (store.RelayItem, bool, error) {
	c.count("GetRelayItem")
	return c.Store.GetRelayItem(ctx, owner, id)
}

func (c *countingStore) PendingRelayItems(ctx context.Context, owner, participant string, now time.Time) ([]store.RelayItem, error) {
	c.count("PendingRelayItems")
	return c.Store.PendingRelayItems(ctx, owner, participant, now)
}

func (c *countingStore) ReplyRelayItem(ctx context.Context, owner, participant, id, reply string, now time.Time) error {
	c.count("ReplyRelayItem")
	return c.Store.ReplyRelayItem(ctx, owner, participant, id, reply, now)
}

func (c *countingStore) CancelRelayItem(ctx context.Context, owner, participant, id string) error {
	c.count("CancelRelayItem")
	return c.Store.CancelRelayItem(ctx, owner, participant, id)
}

func (c *countingStore) TakeRelayBucket(ctx context.Context, b store.RelayBucket, now time.Time) (bool, time.Duration, error) {
	c.count("TakeRelayBucket")
	return c.Store.TakeRelayBucket(ctx, b, now)
}

func (c *countingStore) SpaceRelaySay(ctx context.Context, owner, participant string, gap time.Duration, now time.Time) (bool, time.Duration, error) {
	c.count("SpaceRelaySay")
	return c.Store.SpaceRelaySay(ctx, owner, participant, gap, now)
}

func (c *countingStore) AppendRelayFeed(ctx context.Context, owner string, e store.RelayFeedEntry) (string, error) {
	c.count("AppendRelayFeed")
	return c.Store.AppendRelayFeed(ctx, owner, e)
}

func (c *countingStore) NewestRelayFeed(ctx context.Context, owner string, n int) ([]store.RelayFeedEntry, error) {
	c.count("NewestRelayFeed")
	return c.Store.NewestRelayFeed(ctx, owner, n)
}

func (c *countingStore) RelayFeedAfter(ctx context.Context, owner, after string, n int) ([]store.RelayFeedEntry, error) {
	c.count("RelayFeedAfter")
	return c.Store.RelayFeedAfter(ctx, owner, after, n)
}

func (c *countingStore) LastRelayFeedID(ctx context.Context, owner string) (string, error) {
	c.count("LastRelayFeedID")
	return c.Store.LastRelayFeedID(ctx, owner)
}

func (c *countingStore) ListenRelayInbox(ctx context.Context, owner, participant string) (<-chan struct{}, func(), error) {
	c.count("ListenRelayInbox")
	return c.Store.ListenRelayInbox(ctx, owner, participant)
}

func (c *countingStore) ListenRelayItem(ctx context.Context, owner, id string) (<-chan struct{}, func(), error) {
	c.count("ListenRelayItem")
	return c.Store.ListenRelayItem(ctx, owner, id)
}

func (c *countingStore) ListenRelayFeed(ctx context.Context, owner string) (<-chan struct{}, func(), error) {
	c.count("ListenRelayFeed")
	return c.Store.ListenRelayFeed(ctx, owner)
}

// idleFor is how long TestIdlePollReadsNothing watches one idle poll.
const idleFor = 30 * time.Second

// An idle long poll reads nothing from the store after its first reads,
// however long it waits, and an item still ends it at once: the store's
// pub/sub wakes it. One 30 s poll per store, the stores in parallel.
func TestIdlePollReadsNothing(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			testIdlePoll(t, c.URL)
		})
	}
}

func testIdlePoll(t *testing.T, redisURL string) {
	ctx := context.Background()
	var st store.Store = memstore.New(memstore.Options{})
	if redisURL != "" {
		var err error
		if st, err = stores.Open(ctx, stores.Options{URL: redisURL, KeyPrefix: testutil.Prefix(t)}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { st.Close() })
	counted := &countingStore{Store: st, calls: map[string]int{}}
	r, err := New(Options{Store: counted})
	if err != nil {
		t.Fatal(err)
	}
	r.maxWait = idleFor + 10*time.Second // one poll outlasts the watch
	mux := http.NewServeMux()
	r.Register(mux)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)

	// Pair through the store itself: those calls are not the poll's.
	now, token, pid := time.Now(), newToken(), newUUID()
	if err := st.CreatePairingCode(ctx, store.PairingCode{Hash: "code", Owner: "alice", Name: "Box", Kind: "cli",
		ExpiresAt: now.Add(time.Minute)}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExchangePairingCode(ctx, store.Pairing{CodeHash: "code", Name: "Box", Kind: "cli", ParticipantID: pid,
		TokenHash: hashSecret(token), Now: now, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}

	type answer struct {
		status int
		body   string
	}
	answered := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("GET", fmt.Sprintf("%sinbox?wait=%d", hs.URL+APIPrefix, int((idleFor+5*time.Second).Seconds())), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{-1, err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answered <- answer{resp.StatusCode, string(b)}
	}()
	// The poll's first reads end with its read of the inbox.
	for i := 0; counted.snapshot()["PendingRelayItems"] == 0; i++ {
		if i == 500 {
			t.Fatalf("the poll did not read its inbox within 5 s: %v", counted.snapshot())
		}
		time.Sleep(10 * time.Millisecond)
	}
	first := counted.snapshot()
	time.Sleep(idleFor)
	if idle := counted.snapshot(); !maps.Equal(idle, first) {
		t.Fatalf("store calls during %s of an idle poll: %v, after its first reads %v", idleFor, idle, first)
	}
	select {
	case a := <-answered:
		t.Fatalf("the idle poll ended early: %d %s", a.status, a.body)
	default:
	}

	// An item wakes it at once.
	it := store.RelayItem{ID: "item-1", Participant: pid, Text: "Still there?", AskedAt: time.Now(), DeadlineAt: time.Now().Add(time.Minute)}
	if err := st.EnqueueRelayItem(ctx, "alice", it, MaxPending); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-answered:
		var v struct{ Items []inboxItem }
		if a.status != 200 || json.Unmarshal([]byte(a.body), &v) != nil || len(v.Items) != 1 || v.Items[0].RelayID != it.ID {
			t.Fatalf("the woken poll answered %d %s", a.status, a.body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("an item did not wake the idle poll")
	}
	t.Logf("the poll's first store calls: %v; during %s idle: none", first, idleFor)
}
