package metrics_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// TestFollowers: harnest_followers counts the followers of a response's
// events while they read, on both stores: two follow a held background
// turn, one leaves, and the other ends with the response.
func TestFollowers(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			agent := heldAgent{release: make(chan struct{})}
			ts := servertest.Start(t, c.URL, servertest.Setup{Agent: agent})
			started := ts.Post("/responses", `{"input":"hold","background":true}`)
			servertest.MustStatus(t, started, 200)
			env := started.JSON(t)
			events := "/responses/" + env["id"].(string) + "/events?sessionId=" + env["sessionId"].(string)

			ctx, leave := context.WithCancel(context.Background())
			defer leave()
			first := follow(t, ts, ctx, events)
			second := follow(t, ts, context.Background(), events)
			defer first.Body.Close()
			defer second.Body.Close()
			waitFor(t, ts, "harnest_followers", 2)

			leave()
			waitFor(t, ts, "harnest_followers", 1)

			close(agent.release)
			for lines := bufio.NewScanner(second.Body); lines.Scan(); {
			}
			waitFor(t, ts, "harnest_followers", 0)
			expect(t, settled(t, ts), map[string]float64{
				"harnest_followers":   0,
				"harnest_sse_streams": 0,
				"harnest_http_requests_total|route=GET /responses/{responseId}/events|status=200": 2,
			})
		})
	}
}

// follow opens the event stream at path and reads it up to the held
// turn's text, so that the follower is reading when it returns.
func follow(t *testing.T, ts *servertest.Server, ctx context.Context, path string) *http.Response {
	t.Helper()
	resp, err := http.DefaultClient.Do(ts.Request("GET", path, "", nil).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", path, resp.StatusCode)
	}
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "response.text.delta") {
			return resp
		}
	}
	t.Fatalf("GET %s ended before the turn's text", path)
	return nil
}
