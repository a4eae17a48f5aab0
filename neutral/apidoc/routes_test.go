package apidoc_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harnest/harnest/eval"
	"github.com/harnest/harnest/memoryapi"
	"github.com/harnest/harnest/neutral"
	"github.com/harnest/harnest/neutral/apidoc"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/schedule"
	"github.com/harnest/harnest/trigger"
	"github.com/harnest/harnest/usageapi"
)

// An external test package: package neutral takes its endpoints from
// apidoc, so a test that builds the neutral API cannot be inside apidoc.

// TestDocumentMatchesRoutes checks the document against the routes the
// neutral API registers and the endpoints /agent advertises.
func TestDocumentMatchesRoutes(t *testing.T) {
	doc, err := apidoc.Document(apidoc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api, err := neutral.New(neutral.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	api.Register(mux)
	schedule.New(schedule.Options{}).Register(mux)
	triggers, err := trigger.New(trigger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	triggers.Register(mux)
	mux.Handle("GET "+eval.LastRunPath, eval.LastRunHandler(nil, ""))
	memoryapi.Register(mux, memoryapi.Options{})
	usageapi.Register(mux, usageapi.Options{})
	for path, item := range doc.Paths.Map() {
		if strings.HasPrefix(path, relay.APIPrefix) || strings.HasPrefix(path, relay.OwnerPrefix) {
			continue // relay.TestDocumentMatchesRoutes (relay/routes_test.go)
		}
		concrete := strings.NewReplacer("{responseId}", "resp_x", "{sessionId}", "s", "{assetId}", "asset_x",
			"{approvalId}", "approval_x", "{requestId}", "client_tool_x", "{scheduleId}", "sch_x", "{name}", "hooks", "{namespace}", "prefs", "{key}", "color").Replace(path)
		for method := range item.Operations() {
			_, pattern := mux.Handler(httptest.NewRequest(method, concrete, nil))
			routeMethod := method
			if method == http.MethodHead {
				routeMethod = http.MethodGet // GET patterns answer HEAD
			}
			if pattern != routeMethod+" "+path {
				t.Errorf("%s %s is documented but routed to %q", method, path, pattern)
			}
		}
	}
	for name, path := range neutral.Endpoints() {
		if doc.Paths.Value(path) == nil {
			t.Errorf("endpoint %s (%s) is not documented", name, path)
		}
	}
	example := doc.Paths.Value("/agent").Get.Responses.Status(200).Value.Content.Get("application/json").Example
	endpoints := example.(map[string]any)["endpoints"].(map[string]any)
	for name, path := range neutral.Endpoints() {
		if endpoints[name] != path {
			t.Errorf("agent example endpoint %s = %v, want %s", name, endpoints[name], path)
		}
	}
}
