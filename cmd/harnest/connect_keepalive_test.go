package main

// The relay poll loop of "harnest connect" keeps one connection alive for
// every call (pairing, polls, replies) and never has two polls open at
// once: checked on the real relay behind a listener that counts new
// connections (ConnState) and polls in flight.

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestConnectPollsOnOneKeptConnection(t *testing.T) {
	needProgram(t, "tr")
	rr := newRelayReplica(t, "", nil)
	var newConns, polls, inFlight, maxInFlight atomic.Int64
	counted := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/outside-agents/v1/inbox" {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
			}
			polls.Add(1)
		}
		rr.Srv.Handler.ServeHTTP(w, r)
	}))
	counted.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			newConns.Add(1)
		}
	}
	counted.Start()
	t.Cleanup(func() {
		counted.CloseClientConnections()
		counted.Close()
	})

	code := rr.pairCode(t, "Poller", "cli")
	c := rr.connect(t, code, "--server", counted.URL, "--wait", "1", "--name", "Poller", "--kind", "cli", "--exec", "tr a-z A-Z")
	waitConnected(t, c)
	for _, q := range []string{"first", "second"} {
		if status, v := rr.respond(t, q); status != 200 || v["outputText"] != strings.ToUpper(q) {
			t.Fatalf("turn %q: %d %v; connect: %s", q, status, v, c.stderr.String())
		}
	}
	// A few empty polls too (each waits a second).
	start := polls.Load()
	deadline := time.Now().Add(15 * time.Second)
	for polls.Load() < start+3 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d polls after the turns: %s", polls.Load()-start, c.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.cancel()
	c.exit(t, 10*time.Second)
	if n := newConns.Load(); n != 1 {
		t.Errorf("connect opened %d connections for %d polls, two replies and the pairing; want 1", n, polls.Load())
	}
	if m := maxInFlight.Load(); m != 1 {
		t.Errorf("%d polls were open at once; want 1", m)
	}
}
