package testutil

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiverWait is how long Receiver.Wait waits for what a test expects.
const receiverWait = 20 * time.Second

// Request is one request as a Receiver read it.
type Request struct {
	// Method is the request's method (POST for every push and webhook).
	Method string
	// Path is the URL path the request was sent to.
	Path string
	// Header is a copy of the request's headers.
	Header http.Header
	// Body is the whole request body.
	Body string
	// Status is what the receiver answered: 0 when it held the request
	// until the sender gave up.
	Status int
}

// Receiver is an HTTP endpoint on 127.0.0.1 standing in for a push
// notification or webhook receiver. It records every request it gets and
// answers with the statuses of its plan, in turn, then 200. A planned 0
// holds the request without an answer until the sender gives up.
//
// A Receiver made by On sees only the requests to one path; it shares the
// server, the record and the plan of the Receiver it came from.
type Receiver struct {
	rec  *recording
	path string // "" sees every path
}

// recording is the server and the state every view of one Receiver shares.
type recording struct {
	srv     *httptest.Server
	stop    chan struct{} // closed when the test ends: releases held requests
	mu      sync.Mutex
	plan    []int
	got     []Request
	arrived chan struct{} // closed and replaced on every request
}

// NewReceiver starts a Receiver on 127.0.0.1 whose first answers are plan,
// then 200. It is closed when the test ends.
func NewReceiver(t testing.TB, plan ...int) *Receiver {
	t.Helper()
	rec := &recording{plan: plan, stop: make(chan struct{}), arrived: make(chan struct{})}
	rec.srv = httptest.NewServer(http.HandlerFunc(rec.serve))
	t.Cleanup(func() {
		close(rec.stop)
		rec.srv.Close()
	})
	return &Receiver{rec: rec}
}

// serve records one request and answers it with the next planned status.
func (rec *recording) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	status := http.StatusOK
	if len(rec.plan) > 0 {
		status, rec.plan = rec.plan[0], rec.plan[1:]
	}
	rec.got = append(rec.got, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: string(b), Status: status})
	close(rec.arrived)
	rec.arrived = make(chan struct{})
	rec.mu.Unlock()
	if status == 0 {
		select { // held until the sender gives up or the test ends
		case <-r.Context().Done():
		case <-rec.stop:
		}
		return
	}
	w.WriteHeader(status)
}

// On is a view of the receiver that sees only the requests to path.
func (rc *Receiver) On(path string) *Receiver {
	return &Receiver{rec: rc.rec, path: path}
}

// SetPlan sets the statuses of the next answers (0: hold the request until
// the sender gives up); after them the receiver answers 200.
func (rc *Receiver) SetPlan(plan ...int) {
	rc.rec.mu.Lock()
	rc.rec.plan = plan
	rc.rec.mu.Unlock()
}

// URL is the receiver's address with path appended, e.g. URL("/hook").
func (rc *Receiver) URL(path string) string { return rc.rec.srv.URL + path }

// Host is the receiver's host:port, as an outbound allow list names it.
func (rc *Receiver) Host() string { return strings.TrimPrefix(rc.rec.srv.URL, "http://") }

// Requests returns a copy of what arrived (on the view's path, for a view
// made by On), in order of arrival.
func (rc *Receiver) Requests() []Request {
	got, _ := rc.snapshot()
	return got
}

// snapshot returns what arrived and a channel closed at the next arrival.
func (rc *Receiver) snapshot() ([]Request, <-chan struct{}) {
	rc.rec.mu.Lock()
	defer rc.rec.mu.Unlock()
	var got []Request
	for _, r := range rc.rec.got {
		if rc.path == "" || r.Path == rc.path {
			got = append(got, r)
		}
	}
	return got, rc.rec.arrived
}

// Wait waits (at most 20 s) until done holds for what arrived, and returns
// it; otherwise the test fails, saying it never got what.
func (rc *Receiver) Wait(t testing.TB, what string, done func([]Request) bool) []Request {
	t.Helper()
	deadline := time.NewTimer(receiverWait)
	defer deadline.Stop()
	for {
		got, arrived := rc.snapshot()
		if done(got) {
			return got
		}
		select {
		case <-arrived:
		case <-deadline.C:
			where := "the receiver"
			if rc.path != "" {
				where = "the receiver's " + rc.path
			}
			t.Fatalf("%s never got %s in %s; it got %d requests", where, what, receiverWait, len(got))
			return nil
		}
	}
}

// DeliveredWith is a Wait condition: some request was answered 200 and its
// body contains every one of parts.
func DeliveredWith(parts ...string) func([]Request) bool {
	return func(got []Request) bool {
		for _, r := range got {
			if r.Status == http.StatusOK && containsAll(r.Body, parts) {
				return true
			}
		}
		return false
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
