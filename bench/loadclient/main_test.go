package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// CheckLoopback is loopback.CheckURL (tested there, host by host) for
// HTTP only: the load client speaks no WebSocket.
func TestCheckLoopback(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:8080/responses", "https://LOCALHOST/"} {
		if err := CheckLoopback(u); err != nil {
			t.Errorf("CheckLoopback(%q) = %v, want nil", u, err)
		}
	}
	for _, u := range []string{"ws://127.0.0.1:1907/live", "http://10.0.0.1/", ""} {
		if err := CheckLoopback(u); err == nil {
			t.Errorf("CheckLoopback(%q) = nil, want an error", u)
		}
	}
}

// Run must refuse a non-loopback URL before dialling anything: it returns at
// once, without waiting for warmup, duration or a connect timeout.
func TestRunRefusesNonLoopbackWithoutDialling(t *testing.T) {
	for _, u := range []string{"http://10.0.0.1/", "http://example.com/"} {
		start := time.Now()
		_, err := Run(context.Background(), Config{
			URL: u, Concurrency: 1, Duration: 5 * time.Second, Warmup: 5 * time.Second,
		})
		if err == nil || !strings.Contains(err.Error(), "only target loopback") {
			t.Errorf("Run(%q) error = %v, want loopback refusal", u, err)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("Run(%q) took %v; it should refuse without dialling", u, d)
		}
	}
}

func TestShortJSONRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"completed"}`)
	}))
	defer srv.Close()

	res, err := Run(context.Background(), Config{
		URL:         srv.URL + "/responses",
		Method:      http.MethodPost,
		Body:        `{"input":"hello"}`,
		Headers:     []string{"Content-Type: application/json"},
		Concurrency: 4,
		Duration:    300 * time.Millisecond,
		Warmup:      50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.OK != res.Requests {
		t.Fatalf("requests %d ok %d, want >0 and equal (first error %q)", res.Requests, res.OK, res.FirstError)
	}
	if res.Failures != 0 {
		t.Fatalf("failures = %d (%s), want 0", res.Failures, res.FirstError)
	}
	if res.ReqPerSec <= 0 || res.LatencyMs.P50 <= 0 || res.LatencyMs.Max < res.LatencyMs.P99 {
		t.Fatalf("implausible figures: %+v", res)
	}
	if res.ElapsedSec > 3 {
		t.Fatalf("run took %.2fs, want it bounded by -d", res.ElapsedSec)
	}
}

func TestShortRunCountsNon2xx(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	defer srv.Close()

	res, err := Run(context.Background(), Config{
		URL: srv.URL, Method: http.MethodGet, Concurrency: 2,
		Duration: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Non2xx != res.Requests || res.OK != 0 || res.FailureRate() != 1 {
		t.Fatalf("got %+v, want every request counted as non-2xx", res)
	}
}

func TestShortSSERun(t *testing.T) {
	frames := []string{
		"event: response.created\ndata: {}\n\n",
		": a comment\n\n",
		"event: response.output_text.delta\r\ndata: {\"delta\":\"hi\"}\r\n\r\n",
		"data: unnamed\n\n",
		"event: response.completed\ndata: {}\n\n",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range frames {
			_, _ = io.WriteString(w, f)
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()

	res, err := Run(context.Background(), Config{
		URL: srv.URL, Method: http.MethodPost, Body: `{"input":"hello","stream":true}`,
		Concurrency: 2, Duration: 300 * time.Millisecond,
		SSE: true, SSEFinal: "response.completed",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK == 0 || res.Failures != 0 {
		t.Fatalf("ok %d failures %d (%s)", res.OK, res.Failures, res.FirstError)
	}
	if res.SSE == nil || res.SSE.Events != 4*res.OK {
		t.Fatalf("events %+v, want 4 per stream for %d streams", res.SSE, res.OK)
	}
	if res.SSE.TTFEP50 <= 0 || res.SSE.TTFEP50 > res.LatencyMs.Max {
		t.Fatalf("implausible time to first event: %+v latency %+v", res.SSE, res.LatencyMs)
	}

	// A stream that does not end with the expected event is a failure.
	res, err = Run(context.Background(), Config{
		URL: srv.URL, Concurrency: 1, Duration: 100 * time.Millisecond,
		SSE: true, SSEFinal: "response.failed",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != res.Requests {
		t.Fatalf("got %+v, want every stream to fail the final-event check", res)
	}
}

func TestReadSSELongLine(t *testing.T) {
	long := "data: " + strings.Repeat("x", 100) + "\n\n"
	in := "event: a\n" + long + "event: b\ndata: y\n\n"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	n := 0
	events, last, err := readSSE(br, func() { n++ })
	if err != nil || events != 2 || n != 2 || last != "b" {
		t.Fatalf("events %d calls %d last %q err %v, want 2 2 b nil", events, n, last, err)
	}
}

func TestPercentile(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i))
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50}, {0.9, 90}, {0.99, 99}, {1, 100}} {
		if got := percentile(s, c.q); got != c.want {
			t.Errorf("percentile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if percentile(nil, 0.5) != 0 {
		t.Error("percentile of empty slice should be 0")
	}
}

// With -prepare-url, every measured request carries the value the prepare
// request returned, and a fresh one each time (-prepare-every request).
func TestPrepareEveryRequest(t *testing.T) {
	var made atomic.Int64
	seen := map[string]bool{}
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sessions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"s%d","other":1}`, made.Add(1))
	})
	mux.HandleFunc("POST /run/{id}", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"session":"`+r.PathValue("id")+`"`) {
			http.Error(w, "body and URL disagree: "+string(body), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if seen[r.PathValue("id")] {
			http.Error(w, "session used twice", http.StatusConflict)
			return
		}
		seen[r.PathValue("id")] = true
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	res, err := Run(context.Background(), Config{
		URL: srv.URL + "/run/" + Placeholder, Body: `{"session":"` + Placeholder + `"}`,
		Concurrency: 2, Duration: 200 * time.Millisecond,
		Prepare: Prepare{URL: srv.URL + "/sessions", Body: "{}"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK == 0 || res.Failures != 0 {
		t.Fatalf("ok %d failures %d (%s)", res.OK, res.Failures, res.FirstError)
	}

	// A prepare answer without the field fails every request, saying why.
	res, err = Run(context.Background(), Config{
		URL: srv.URL + "/run/" + Placeholder, Concurrency: 1, Duration: 100 * time.Millisecond,
		Prepare: Prepare{URL: srv.URL + "/sessions", Field: "missing"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != res.Requests || !strings.Contains(res.FirstError, `no string field "missing"`) {
		t.Fatalf("got %+v, want every request to fail on the prepare answer", res)
	}
}

func TestPrepareOptionsAreChecked(t *testing.T) {
	for _, p := range []Prepare{
		{URL: "http://example.com/sessions"},
		{URL: "http://127.0.0.1/sessions", Every: "sometimes"},
	} {
		cfg := Config{URL: "http://127.0.0.1/", Concurrency: 1, Duration: time.Second, Prepare: p}
		if err := cfg.Validate(); err == nil {
			t.Errorf("Validate with %+v = nil, want an error", p)
		}
	}
}

// -expect turns a 2xx answer without the text into an error (a JSON-RPC
// error arrives with 200).
func TestExpect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32601}}`)
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Config{URL: srv.URL, Concurrency: 1, Duration: 100 * time.Millisecond, Expect: "Echo: hello"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != res.Requests || !strings.Contains(res.FirstError, "does not contain") {
		t.Fatalf("got %+v, want every answer refused", res)
	}
	res, err = Run(context.Background(), Config{URL: srv.URL, Concurrency: 1, Duration: 100 * time.Millisecond, Expect: "jsonrpc"})
	if err != nil || res.OK == 0 || res.Failures != 0 {
		t.Fatalf("got %+v, %v; want every answer accepted", res, err)
	}
}
