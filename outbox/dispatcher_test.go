package outbox

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/netguard"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
	"github.com/harnest/harnest/store/redisstore"
)

// receiver is an HTTP endpoint on 127.0.0.1 that records what it is
// sent and answers with the statuses it is given, in turn (then 200).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	got      []*http.Request
	bodies   []string
	arrived  chan struct{}
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	rc := &receiver{statuses: statuses, arrived: make(chan struct{}, 100)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, r)
		rc.bodies = append(rc.bodies, string(b))
		status := http.StatusOK
		if len(rc.statuses) > 0 {
			status, rc.statuses = rc.statuses[0], rc.statuses[1:]
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
		rc.arrived <- struct{}{}
	}))
	t.Cleanup(rc.Close)
	return rc
}

// wait waits for n requests in all (at most 10 s).
func (rc *receiver) wait(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		rc.mu.Lock()
		have := len(rc.got)
		rc.mu.Unlock()
		if have >= n {
			return
		}
		select {
		case <-rc.arrived:
		case <-deadline:
			t.Fatalf("the receiver got %d requests, want %d", have, n)
		}
	}
}

func (rc *receiver) host(t *testing.T) string {
	u, err := url.Parse(rc.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// startDispatcher runs a dispatcher on st that may reach hosts, with a
// short poll and backoff.
func startDispatcher(t *testing.T, st store.Store, maxAttempts int, hosts ...string) *Dispatcher {
	d := NewDispatcher(DispatcherOptions{Store: st, Policy: netguard.Policy{AllowHosts: hosts, AllowHTTPLoopback: true},
		Poll: 20 * time.Millisecond, Lease: 5 * time.Second, Timeout: 3 * time.Second, MaxAttempts: maxAttempts,
		Backoff: func(int) time.Duration { return 30 * time.Millisecond }})
	d.Start()
	t.Cleanup(d.Close)
	return d
}

func TestDispatcherRetriesAndSignsWebhooks(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { st.Close() })
	rc := newReceiver(t, http.StatusInternalServerError, http.StatusBadGateway)
	d := startDispatcher(t, st, 5, rc.host(t))
	ctx := context.Background()
	for i := range 3 {
		err := d.Enqueue(ctx, store.Delivery{ID: "dlv_" + strconv.Itoa(i), User: "alice", Key: "response/r1", Kind: runtime.DeliveryWebhook,
			URL: rc.URL + "/hook", Body: []byte(`{"n":` + strconv.Itoa(i) + `}`), Headers: map[string]string{"X-Extra": "yes"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	rc.wait(t, 5) // two failures, then the three in order
	rc.mu.Lock()
	defer rc.mu.Unlock()
	want := []string{`{"n":0}`, `{"n":0}`, `{"n":0}`, `{"n":1}`, `{"n":2}`}
	if strings.Join(rc.bodies, " ") != strings.Join(want, " ") {
		t.Fatalf("bodies %v, want %v (retried in order)", rc.bodies, want)
	}
	key, err := runtime.WebhookKeyOf(ctx, st, "alice")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rc.got {
		if r.Header.Get("X-Extra") != "yes" || r.Header.Get("Content-Type") != "application/json" || r.Method != http.MethodPost {
			t.Errorf("request %d: %s %v", i, r.Method, r.Header)
		}
		if !testutil.VerifyWebhookSignature(key, testutil.Request{Header: r.Header, Body: rc.bodies[i]}) {
			t.Errorf("request %d: signature %q does not verify", i, r.Header.Get("Harnest-Signature"))
		}
	}
	other, _ := runtime.WebhookKeyOf(ctx, st, "bob")
	if testutil.VerifyWebhookSignature(other, testutil.Request{Header: rc.got[0].Header, Body: rc.bodies[0]}) {
		t.Error("another user's key verifies alice's webhook")
	}
}

func TestDispatcherGivesUpAfterMaxAttempts(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { st.Close() })
	rc := newReceiver(t, 500, 500, 500, 500, 500)
	d := startDispatcher(t, st, 2, rc.host(t))
	ctx := context.Background()
	for _, body := range []string{"dead", "next"} {
		if err := d.Enqueue(ctx, store.Delivery{User: "u", Key: "k", URL: rc.URL, Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	rc.wait(t, 4)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if got := strings.Join(rc.bodies[:4], " "); got != "dead dead next next" {
		t.Fatalf("bodies %q, want two tries of each, the dead one dropped", got)
	}
}

func TestDispatcherRefusals(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { st.Close() })
	elsewhere := newReceiver(t)
	// A redirect to another origin is not followed: the token and
	// credentials are meant for the first receiver only.
	hits := make(chan struct{}, 10)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- struct{}{}
		http.Redirect(w, r, elsewhere.URL+"/stolen", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)
	rhost := strings.TrimPrefix(redirector.URL, "http://")
	d := startDispatcher(t, st, 1, rhost, elsewhere.host(t))
	for _, bad := range []string{"http://10.0.0.1/hook", "https://127.0.0.1:1/hook", "ftp://example.com", "https://user:pw@example.com/", "/relative"} {
		if err := d.CheckURL(bad); err == nil {
			t.Errorf("CheckURL(%q) passed", bad)
		}
	}
	if err := d.CheckURL(elsewhere.URL + "/ok"); err != nil {
		t.Errorf("a listed loopback host is refused: %v", err)
	}
	del := store.Delivery{User: "u", Key: "k", URL: redirector.URL + "/hook", Body: []byte("x")}
	if err := d.Enqueue(context.Background(), del); err != nil {
		t.Fatal(err)
	}
	select {
	case <-hits:
	case <-time.After(10 * time.Second):
		t.Fatal("the delivery was never tried")
	}
	d.Close() // its one attempt is over once Close returns
	elsewhere.mu.Lock()
	defer elsewhere.mu.Unlock()
	if len(elsewhere.got) != 0 {
		t.Fatalf("a redirect to another origin was followed: %v", elsewhere.bodies)
	}
}

// TestDispatcherSharesOutSlowReceivers: one user's receiver (or one
// destination that several users' webhooks go to) hangs with many
// deliveries queued, each in a queue of its own; another user's single
// webhook elsewhere is sent all the same within seconds, not after the
// slow deliveries have each timed out (6 s here).
func TestDispatcherSharesOutSlowReceivers(t *testing.T) {
	stores := map[string]func(t *testing.T) store.Store{
		"memstore": func(t *testing.T) store.Store { return memstore.New(memstore.Options{}) },
	}
	for _, c := range testutil.Stores(t) {
		if c.URL == "" {
			continue
		}
		stores["redis-server"] = func(t *testing.T) store.Store {
			st, err := redisstore.Open(context.Background(), redisstore.Options{URL: c.URL, KeyPrefix: testutil.Prefix(t)})
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
	}
	for name, open := range stores {
		for _, slowUsers := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/%d-users-to-the-slow-one", name, slowUsers), func(t *testing.T) {
				t.Parallel()
				st := open(t)
				t.Cleanup(func() { st.Close() })
				hang := make(chan struct{})
				slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					select { // at most 20 s, or until the test ends
					case <-hang:
					case <-r.Context().Done():
					case <-time.After(20 * time.Second):
					}
				}))
				defer slow.Close()
				defer close(hang)
				fast := newReceiver(t)
				d := NewDispatcher(DispatcherOptions{Store: st,
					Policy: netguard.Policy{AllowHosts: []string{strings.TrimPrefix(slow.URL, "http://"), fast.host(t)}, AllowHTTPLoopback: true},
					Poll:   50 * time.Millisecond, Timeout: 6 * time.Second})
				d.Start()
				defer d.Close()
				ctx := context.Background()
				for i := range 96 {
					err := d.Enqueue(ctx, store.Delivery{User: "slow" + strconv.Itoa(i%slowUsers), Key: "response/" + strconv.Itoa(i),
						Kind: runtime.DeliveryWebhook, URL: slow.URL + "/hook", Body: []byte(`{}`)})
					if err != nil {
						t.Fatal(err)
					}
				}
				time.Sleep(200 * time.Millisecond) // the slow ones are in flight
				start := time.Now()
				if err := d.Enqueue(ctx, store.Delivery{User: "bob", Key: "response/b", Kind: runtime.DeliveryWebhook, URL: fast.URL + "/hook", Body: []byte(`{"bob":1}`)}); err != nil {
					t.Fatal(err)
				}
				select {
				case <-fast.arrived:
					t.Logf("bob's webhook arrived after %v", time.Since(start).Round(time.Millisecond))
				case <-time.After(5 * time.Second):
					t.Fatalf("bob's webhook did not arrive within 5 s of the slow ones")
				}
			})
		}
	}
}
