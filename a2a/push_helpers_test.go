package a2a_test

import (
	"context"
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

	"github.com/harnest/harnest/a2a"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// pushReceiver is a push notification endpoint on 127.0.0.1 that records
// what it gets; its first answers are the statuses of its plan, then 200.
type pushReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	plan    []int
	got     []pushed
	arrived chan struct{}
}

// pushed is one notification as the receiver read it.
type pushed struct {
	path   string
	header http.Header
	body   string
	status int
}

func newPushReceiver(t *testing.T) *pushReceiver {
	rc := &pushReceiver{arrived: make(chan struct{}, 1000)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		status := http.StatusOK
		if len(rc.plan) > 0 {
			status, rc.plan = rc.plan[0], rc.plan[1:]
		}
		rc.got = append(rc.got, pushed{path: r.URL.Path, header: r.Header.Clone(), body: string(b), status: status})
		rc.mu.Unlock()
		rc.arrived <- struct{}{}
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *pushReceiver) setPlan(plan ...int) {
	rc.mu.Lock()
	rc.plan = plan
	rc.mu.Unlock()
}

// at is the URL of one of the receiver's paths.
func (rc *pushReceiver) at(path string) string { return rc.srv.URL + path }

// on waits (at most 15 s) until the notifications to path satisfy done,
// and returns them.
func (rc *pushReceiver) on(t *testing.T, path string, done func([]pushed) bool) []pushed {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		rc.mu.Lock()
		var mine []pushed
		for _, p := range rc.got {
			if p.path == path {
				mine = append(mine, p)
			}
		}
		rc.mu.Unlock()
		if done(mine) {
			return mine
		}
		select {
		case <-rc.arrived:
		case <-deadline:
			t.Fatalf("the receiver's %s never got what the test waits for; it got %d notifications", path, len(mine))
		}
	}
}

// untilCompleted waits for a notification that says the task completed.
func untilCompleted(got []pushed) bool {
	for _, p := range got {
		if p.status == 200 && strings.Contains(p.body, "TASK_STATE_COMPLETED") && strings.Contains(p.body, "statusUpdate") {
			return true
		}
	}
	return false
}

// pushServerSetup serves the echo card with the receiver's host allowed
// and a quick outbox.
func pushServerSetup(rc *pushReceiver) servertest.Setup {
	host := strings.TrimPrefix(rc.srv.URL, "http://")
	return servertest.Setup{
		Card: testCard("http://127.0.0.1:1907", true), PublicURL: true,
		Config: func(c *config.Config) {
			c.Server.Outbound.AllowHosts = []string{host}
			c.Spec.Backend.Echo = &config.EchoBackend{}
		},
		Tune: func(o *runtime.Options) { o.FlushDelay = 5 * time.Millisecond },
		A2A:  func(o *a2a.Options) { o.Principal = testUser },
		Outbox: func(o *runtime.DispatcherOptions) {
			o.Poll, o.Lease, o.Timeout = 20*time.Millisecond, 5*time.Second, 5*time.Second
			o.Backoff = func(int) time.Duration { return 50 * time.Millisecond }
		},
	}
}

// checkSignature verifies a notification's JWT with the key set the
// server serves, and that it signs the body.
func checkSignature(t *testing.T, ts *servertest.Server, p pushed) {
	t.Helper()
	keys := ts.Get("/.well-known/jwks.json")
	if keys.Status != 200 || keys.Header.Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("GET /.well-known/jwks.json: %d %s", keys.Status, keys.Body)
	}
	set, err := jwk.Parse(keys.Body)
	if err != nil {
		t.Fatalf("the served key set does not parse: %v", err)
	}
	tok, err := jwt.Parse([]byte(p.header.Get("A2A-Notification-Signature")), jwt.WithKeySet(set), jwt.WithContext(context.Background()))
	if err != nil {
		t.Fatalf("the notification's JWT does not verify with the served JWKS: %v", err)
	}
	var claimed string
	if err := tok.Get("request_body_sha256", &claimed); err != nil {
		t.Fatalf("the JWT has no request_body_sha256: %v", err)
	}
	if sum := sha256.Sum256([]byte(p.body)); claimed != hex.EncodeToString(sum[:]) {
		t.Errorf("the JWT signs another body")
	}
}
