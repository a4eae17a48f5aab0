package main

// A hung Redis (SIGSTOP: it accepts TCP and answers nothing) must cost each
// request one bounded wait and a clear 503, and the server must recover by
// itself once Redis answers again.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// timedReply is one request of the load, with when it ran.
type timedReply struct {
	method, path string
	start        time.Time
	took         time.Duration
	status       int
	code         string // the error body's code
	body         []byte
	err          error // the exchange itself failed
}

// timedDo sends a request without failing the test (it runs on the load's
// goroutines); a JSON body is sent as application/json.
func (h *harnest) timedDo(method, path, body string) timedReply {
	tr := timedReply{method: method, path: path, start: time.Now()}
	r, err := h.exchange(20*time.Second, method, path, body)
	tr.took, tr.err, tr.status, tr.body = time.Since(tr.start), err, r.Status, r.Body
	if tr.status >= 400 {
		var e struct{ Code string }
		_ = json.Unmarshal(tr.body, &e)
		tr.code = e.Code
	}
	return tr
}

func (tr timedReply) String() string {
	return fmt.Sprintf("%s %s: %d %s after %v (err %v): %s", tr.method, tr.path, tr.status, tr.code, tr.took.Round(time.Millisecond), tr.err, tr.body)
}

func TestRedisFaultPausedRedis(t *testing.T) {
	const (
		storeTimeout = time.Second     // store.redis.timeoutSeconds below
		perRequest   = 4 * time.Second // the store timeout and a margin
		pauseFor     = 10 * time.Second
		workers      = 4
	)
	r := testutil.StartOwnRedis(t)
	folder := agentFolder(t, "", prefixed(t)+"  redis:\n    timeoutSeconds: 1\n")
	h := startHarnest(t, folder, nil, "--redis-url", r.URL)
	t.Cleanup(r.Resume) // before harnest stops, should the test fail while Redis is paused

	mustStatus(t, h.get(t, "/readyz"), http.StatusOK)
	h.completeResponse(t, `{"input":"warm up"}`)

	// The load: JSON turns and session lists, until stopped.
	var (
		mu      sync.Mutex
		replies []timedReply
		wg      sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var tr timedReply
				if i%2 == 0 {
					tr = h.timedDo("POST", "/responses", fmt.Sprintf(`{"input":"load %d-%d"}`, w, i))
				} else {
					tr = h.timedDo("GET", "/sessions?limit=5", "")
				}
				mu.Lock()
				replies = append(replies, tr)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	stopLoad := sync.OnceFunc(func() { close(stop); wg.Wait() })
	t.Cleanup(stopLoad)
	time.Sleep(500 * time.Millisecond)

	// Pause Redis. Readiness turns 503 (once the requests already on their
	// way have timed out) and liveness stays 200.
	r.Pause()
	paused := time.Now()
	var probes []timedReply
	readyDown := false
	for time.Since(paused) < pauseFor {
		health := h.timedDo("GET", "/healthz", "")
		ready := h.timedDo("GET", "/readyz", "")
		probes = append(probes, health, ready)
		if health.status != http.StatusOK {
			t.Errorf("liveness while Redis is paused: %v", health)
		}
		if ready.status == http.StatusServiceUnavailable && ready.code == "store_unavailable" {
			readyDown = true
		} else if time.Since(paused) > perRequest {
			t.Errorf("readiness while Redis is paused: %v", ready)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !readyDown {
		t.Error("/readyz never answered 503 store_unavailable while Redis was paused")
	}
	r.Resume()
	resumed := time.Now()

	// Readiness comes back without a restart, and so do turns.
	for {
		ready := h.timedDo("GET", "/readyz", "")
		if ready.status == http.StatusOK {
			break
		}
		if time.Since(resumed) > perRequest {
			t.Fatalf("readiness %v after SIGCONT", ready)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ready := time.Now()
	for i := range 3 {
		h.completeResponse(t, fmt.Sprintf(`{"input":"after the pause %d"}`, i))
	}
	time.Sleep(300 * time.Millisecond)
	stopLoad()

	// Every request was answered in time, with 200 or a clear 503.
	var longest timedReply
	var during, unavailable int
	var turns []timedReply
	for _, tr := range append(replies, probes...) {
		overlaps := tr.start.Before(resumed) && tr.start.Add(tr.took).After(paused)
		if overlaps {
			during++
			if tr.took > longest.took {
				longest = tr
			}
		}
		switch {
		case tr.err != nil:
			t.Errorf("no answer: %v", tr)
		case tr.took > perRequest:
			t.Errorf("answered after more than %v: %v", perRequest, tr)
		case tr.path == "/readyz":
		case tr.status == http.StatusOK:
			if tr.method == "POST" {
				turns = append(turns, tr)
			}
		case tr.status == http.StatusServiceUnavailable && tr.code == "store_unavailable":
			unavailable++
			if tr.start.After(ready) {
				t.Errorf("503 after readiness came back: %v", tr)
			}
		default:
			t.Errorf("want 200 or 503 store_unavailable: %v", tr)
		}
	}
	t.Logf("%d requests, %d during the %v pause, %d answered 503 store_unavailable; longest during the pause %v (store timeout %v): %s %s %d %s",
		len(replies)+len(probes), during, pauseFor, unavailable, longest.took.Round(time.Millisecond), storeTimeout,
		longest.method, longest.path, longest.status, longest.code)
	if unavailable == 0 {
		t.Error("no request failed while Redis was paused: the pause was not exercised")
	}

	// Every turn answered 200 has its receipt: the same body.
	for _, tr := range turns {
		var v map[string]any
		if err := json.Unmarshal(tr.body, &v); err != nil {
			t.Errorf("200 body is not JSON: %v", tr)
			continue
		}
		got := h.get(t, receiptPath(v))
		if got.Status != http.StatusOK || !bytes.Equal(got.Body, tr.body) {
			t.Errorf("receipt of %v: %d %s, want the same body %s", v["id"], got.Status, got.Body, tr.body)
		}
	}
	t.Logf("%d turns answered 200; every receipt matches", len(turns))
}
