package server_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// hookReceiver is an endpoint on 127.0.0.1 that records every POST it
// gets. Its first answers are the statuses it is given (0: hold the
// request until the sender gives up), then 200.
type hookReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	plan    []int
	got     []hookRequest
	arrived chan struct{}
}

// hookRequest is one request as the receiver read it.
type hookRequest struct {
	header http.Header
	body   string
	status int
}

func newHookReceiver(t *testing.T, plan ...int) *hookReceiver {
	rc := &hookReceiver{plan: plan, arrived: make(chan struct{}, 1000)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		status := http.StatusOK
		if len(rc.plan) > 0 {
			status, rc.plan = rc.plan[0], rc.plan[1:]
		}
		rc.got = append(rc.got, hookRequest{header: r.Header.Clone(), body: string(b), status: status})
		rc.mu.Unlock()
		rc.arrived <- struct{}{}
		if status == 0 {
			<-r.Context().Done() // held until the sender goes away
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// setPlan sets the statuses of the next answers.
func (rc *hookReceiver) setPlan(plan ...int) {
	rc.mu.Lock()
	rc.plan = plan
	rc.mu.Unlock()
}

func (rc *hookReceiver) url() string  { return rc.srv.URL + "/hook" }
func (rc *hookReceiver) host() string { return strings.TrimPrefix(rc.srv.URL, "http://") }

// requests returns a copy of what arrived.
func (rc *hookReceiver) requests() []hookRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hookRequest(nil), rc.got...)
}

// waitFor waits (at most 15 s) until done holds for what arrived.
func (rc *hookReceiver) waitFor(t *testing.T, what string, done func([]hookRequest) bool) []hookRequest {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		if got := rc.requests(); done(got) {
			return got
		}
		select {
		case <-rc.arrived:
		case <-deadline:
			t.Fatalf("the receiver never got %s; it got %d requests", what, len(rc.requests()))
		}
	}
}

// pushCard serves JSON-RPC at /a2a and HTTP+JSON at /rest, A2A 1.0 and 0.3.
func pushCard() map[string]any {
	iface := func(path, binding, version string) any {
		return map[string]any{"url": "http://127.0.0.1:1907" + path, "protocolBinding": binding, "protocolVersion": version}
	}
	return map[string]any{
		"name": "Push", "description": "Echoes, and pushes its updates.", "version": "1.0.0",
		"supportedInterfaces": []any{iface("/a2a", "JSONRPC", "1.0"), iface("/rest", "HTTP+JSON", "1.0"),
			iface("/a2a", "JSONRPC", "0.3"), iface("/rest", "HTTP+JSON", "0.3")},
		"capabilities":       map[string]any{"streaming": true},
		"defaultInputModes":  []any{"text/plain"},
		"defaultOutputModes": []any{"text/plain"},
		"skills":             []any{map[string]any{"id": "echo", "name": "Echo", "description": "Echo.", "tags": []any{"echo"}}},
	}
}

// pushSetup serves the push card with the receiver's host allowed and a
// quick outbox: short polls, leases and backoff.
func pushSetup(rc *hookReceiver, lease time.Duration) servertest.Setup {
	return servertest.Setup{
		Card: pushCard(), PublicURL: true,
		Config: func(c *config.Config) {
			c.Server.Outbound.AllowHosts = []string{rc.host()}
			c.Spec.Backend.Echo = &config.EchoBackend{}
		},
		Tune: func(o *runtime.Options) { o.FlushDelay = 5 * time.Millisecond },
		Outbox: func(o *runtime.DispatcherOptions) {
			o.Poll, o.Lease, o.Timeout = 20*time.Millisecond, lease, 10*time.Second
			o.Backoff = func(int) time.Duration { return 50 * time.Millisecond }
		},
	}
}

// verifyPushJWT checks a notification's JWT with the key set the server
// serves: its signature, and that it signs this body.
func verifyPushJWT(t *testing.T, ts *servertest.Server, r hookRequest) {
	t.Helper()
	keys := ts.Get("/.well-known/jwks.json")
	servertest.MustStatus(t, keys, 200)
	set, err := jwk.Parse(keys.Body)
	if err != nil {
		t.Fatalf("the served key set does not parse: %v", err)
	}
	raw := r.header.Get("A2A-Notification-Signature")
	if bearer := r.header.Get("Authorization"); bearer != "Bearer "+raw {
		t.Errorf("Authorization %q, want the JWT as a Bearer token", bearer)
	}
	tok, err := jwt.Parse([]byte(raw), jwt.WithKeySet(set), jwt.WithContext(context.Background()))
	if err != nil {
		t.Fatalf("the notification's JWT does not verify with the served JWKS: %v", err)
	}
	var claimed string
	if err := tok.Get("request_body_sha256", &claimed); err != nil {
		t.Fatalf("the JWT has no request_body_sha256: %v", err)
	}
	sum := sha256.Sum256([]byte(r.body))
	if claimed != hex.EncodeToString(sum[:]) {
		t.Errorf("the JWT signs another body: %s", claimed)
	}
}

// verifyWebhook checks a Harnest-Signature header with the key.
func verifyWebhook(key []byte, r hookRequest) bool {
	var ts, sig string
	for _, part := range strings.Split(r.header.Get("Harnest-Signature"), ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(ts + "." + r.body))
	return ts != "" && hmac.Equal([]byte(sig), []byte(hex.EncodeToString(m.Sum(nil))))
}
