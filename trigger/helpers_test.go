package trigger_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// The secrets of the test triggers.
const (
	standardSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	otherSecret    = "whsec_c2VjcmV0IG9mIHNvbWVvbmUgZWxzZQ=="
	githubSecret   = "It's a Secret to Everybody"
)

// triggers configures the test's triggers: "hooks" (Standard Webhooks,
// one session per ticket) and "gh" (GitHub), both as alice, both
// answering waits named by /approvalId with /approved or /output.
func triggers(c *config.Config) {
	answer := &config.TriggerAnswer{WaitID: "/approvalId", Approved: "/approved", Output: "/output"}
	c.Server.Triggers = map[string]config.Trigger{
		"hooks": {Scheme: config.TriggerStandardWebhooks, Secret: standardSecret, User: "alice",
			Input: "{/text}", Session: "ticket-{/ticket}", Answer: answer},
		"gh": {Scheme: config.TriggerGitHub, Secret: githubSecret, User: "alice",
			Input: "New issue {/issue/title}", Answer: answer},
	}
}

var alice = runtime.Principal{UserID: "alice"}

// standardSignature is the v1 signature of a Standard Webhooks delivery.
func standardSignature(t *testing.T, secret, id, stamp string, body []byte) string {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + stamp + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// githubSignature is the X-Hub-Signature-256 of a body.
func githubSignature(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func now() string { return strconv.FormatInt(time.Now().Unix(), 10) }

// sendStandard posts a genuine Standard Webhooks delivery.
func sendStandard(t *testing.T, ts *servertest.Server, id, body string) servertest.Reply {
	t.Helper()
	stamp := now()
	return ts.Do("POST", "/triggers/hooks", "application/json", []byte(body),
		"webhook-id", id, "webhook-timestamp", stamp, "webhook-signature", standardSignature(t, standardSecret, id, stamp, []byte(body)))
}

// sendGitHub posts a genuine GitHub delivery.
func sendGitHub(t *testing.T, ts *servertest.Server, id, body string) servertest.Reply {
	t.Helper()
	return ts.Do("POST", "/triggers/gh", "application/json", []byte(body),
		"X-GitHub-Event", "issues", "X-GitHub-Delivery", id, "X-Hub-Signature-256", githubSignature(githubSecret, []byte(body)))
}

// accepted checks a 202 and returns its view.
func accepted(t *testing.T, r servertest.Reply, action string) (responseID, sessionID string) {
	t.Helper()
	servertest.MustStatus(t, r, 202)
	v := r.JSON(t)
	if v["action"] != action || v["responseId"] == "" || v["sessionId"] == "" || v["deliveryId"] == "" {
		t.Fatalf("accepted %s, want action %s with IDs", r.Body, action)
	}
	return v["responseId"].(string), v["sessionId"].(string)
}

// receiptUntil polls alice's receipt until its status is want, and returns it.
func receiptUntil(t *testing.T, ts *servertest.Server, sessionID, responseID, want string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var env map[string]any
	for time.Now().Before(deadline) {
		body, err := ts.Srv.Service.GetResponse(context.Background(), alice, sessionID, responseID)
		if err == nil {
			env = map[string]any{}
			if err := json.Unmarshal(body, &env); err != nil {
				t.Fatal(err)
			}
			if env["status"] == want {
				return env
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("receipt %s never became %s: %v", responseID, want, env)
	return nil
}

// snapshot is alice's sessions and each one's responses, as JSON: what a
// refused delivery must not change.
func snapshot(t *testing.T, ts *servertest.Server) string {
	t.Helper()
	ctx := context.Background()
	page, err := ts.Srv.Service.ListSessions(ctx, alice, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	out := []any{page}
	for _, s := range page.Sessions {
		rs, err := ts.Srv.Service.SessionResponses(ctx, alice, s.ID, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rs)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }
