package relay_test

import (
	"context"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/server/servertest"
)

// registered are the routes relay.Register mounts (from relay.go).
var registered = []string{
	"POST /api/outside-agents/v1/pairings/exchange", "GET /api/outside-agents/v1/inbox",
	"POST /api/outside-agents/v1/replies", "GET /api/outside-agents/v1/session/status",
	"POST /api/outside-agents/v1/notices",
	"POST /owner/outside-agents/pairings", "GET /owner/outside-agents/participants",
	"POST /owner/outside-agents/participants/{id}/pause", "POST /owner/outside-agents/participants/{id}/resume",
	"POST /owner/outside-agents/participants/{id}/disconnect", "DELETE /owner/outside-agents/participants/{id}",
	"GET /owner/outside-agents/feed", "GET /owner/outside-agents/feed/stream",
	// tools.go and recipes.go
	"POST /api/outside-agents/v1/tools/call",
	"GET /owner/outside-agents/participants/{id}/grants", "POST /owner/outside-agents/participants/{id}/grants",
	"DELETE /owner/outside-agents/participants/{id}/grants", "GET /owner/outside-agents/participants/{id}/tool-calls",
	"POST /owner/outside-agents/tool-approvals/{id}", "GET /owner/outside-agents/recipes",
}

// routeOf is a documented path as the route relay.Register mounts it, and
// as a URL to probe it with.
func routeOf(path string) (route, url string) {
	r := strings.NewReplacer("{participantId}", "{id}", "{approvalId}", "{id}")
	u := strings.NewReplacer("{participantId}", "p1", "{approvalId}", "tool_approval_x")
	return r.Replace(path), u.Replace(path)
}

// TestDocumentMatchesRoutes checks every relay operation of the OpenAPI
// document a server serves against the routes that server answers, and
// every route relay.Register mounts against the document. A route is
// answered when the relay's handler answers it (JSON or an event stream),
// not the router's plain-text 404 or 405; the answer must be one of the
// statuses the document lists for the operation.
func TestDocumentMatchesRoutes(t *testing.T) {
	ts := servertest.Start(t, "", servertest.Setup{}) // no tokens: the anonymous user is the owner
	served := ts.Get("/openapi.json")
	mustStatus(t, served, 200)
	doc, err := openapi3.NewLoader().LoadFromData(served.Body)
	if err != nil {
		t.Fatalf("the served document does not load: %v", err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		if !strings.HasPrefix(path, relay.APIPrefix) && !strings.HasPrefix(path, relay.OwnerPrefix) {
			continue
		}
		route, url := routeOf(path)
		for method, op := range item.Operations() {
			documented[method+" "+route] = true
			status, answered := probe(t, ts, method, url)
			if !answered {
				t.Errorf("%s %s is documented but not routed to the relay (%d from the router)", method, path, status)
				continue
			}
			if op.Responses.Status(status) == nil {
				t.Errorf("%s %s answered %d, which the document does not list", method, path, status)
			}
		}
	}
	for _, r := range registered {
		method, path, _ := strings.Cut(r, " ")
		if status, answered := probe(t, ts, method, strings.ReplaceAll(path, "{id}", "p1")); !answered {
			t.Errorf("relay.Register no longer mounts %s (%d from the router); update this list and the document", r, status)
		}
		if !documented[r] {
			t.Errorf("route %s is not documented", r)
		}
	}
	if len(documented) != len(registered) {
		var got []string
		for r := range documented {
			got = append(got, r)
		}
		slices.Sort(got)
		t.Errorf("relay operations documented: %v, want the %d routes relay.Register mounts", got, len(registered))
	}
}

// probe sends method path with an empty JSON object (a POST) and reports
// the status and whether a handler, not the router, answered. An event
// stream is read no further than its head.
func probe(t *testing.T, ts *servertest.Server, method, path string) (int, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var body []byte
	if method == http.MethodPost {
		body = []byte(`{}`)
	}
	resp, err := http.DefaultClient.Do(ts.Request(method, path, "application/json", body).WithContext(ctx))
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "text/event-stream" {
		return resp.StatusCode, true
	}
	b, _ := io.ReadAll(resp.Body)
	answered := ct == "application/json" || resp.StatusCode == http.StatusNoContent
	if !answered {
		t.Logf("%s %s: %d %s: %q", method, path, resp.StatusCode, ct, b)
	}
	return resp.StatusCode, answered
}
