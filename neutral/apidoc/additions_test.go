package apidoc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/harnest/harnest/internal/alive"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/relay/recipes"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store/memstore"
)

// TestRelayDocumentMatchesRegister checks that every relay operation the
// document lists is a route relay.Register mounts, pattern for pattern.
// (That every route is documented is relayPaths' count in
// TestRelayPathsExist and relay's own TestDocumentMatchesRoutes.)
func TestRelayDocumentMatchesRegister(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() })
	r, err := relay.New(relay.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	mux := http.NewServeMux()
	r.Register(mux)
	toRoute := strings.NewReplacer("{participantId}", "{id}", "{approvalId}", "{id}")
	toURL := strings.NewReplacer("{participantId}", "p1", "{approvalId}", "tool_approval_x")
	for path, item := range mustDocument(t, Options{}).Paths.Map() {
		if !isRelayPath(path) {
			continue
		}
		for method := range item.Operations() {
			_, pattern := mux.Handler(httptest.NewRequest(method, toURL.Replace(path), nil))
			if want := method + " " + toRoute.Replace(path); pattern != want {
				t.Errorf("%s %s is documented but routed to %q, want %q", method, path, pattern, want)
			}
		}
	}
}

// TestRelayLookAndRecipes checks the look's values against internal/alive
// and the built-in recipes against the RelayRecipe schema.
func TestRelayLookAndRecipes(t *testing.T) {
	if aliveExtensionURI != alive.ExtensionURI {
		t.Errorf("aliveExtensionURI = %q, want %q", aliveExtensionURI, alive.ExtensionURI)
	}
	for _, l := range houseLooks {
		if !alive.IsHouseLook(l) {
			t.Errorf("%q is documented as a house look but alive refuses it", l)
		}
	}
	doc := mustDocument(t, Options{})
	builtin, err := recipes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	list := builtin.List()
	if len(list) == 0 {
		t.Fatal("no built-in recipes")
	}
	b, err := json.Marshal(map[string]any{"recipes": list})
	if err != nil {
		t.Fatal(err)
	}
	var body any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatal(err)
	}
	if err := doc.Components.Schemas["RelayRecipes"].Value.VisitJSON(body); err != nil {
		t.Errorf("the built-in recipes do not match RelayRecipes: %v", err)
	}
}

// TestArtifactSchemas checks artifacts as the runtime encodes them (a
// response.artifact event and an artifact output item of a receipt)
// against the document's schemas.
func TestArtifactSchemas(t *testing.T) {
	doc := mustDocument(t, Options{})
	schema := func(name string) *openapi3.Schema { return doc.Components.Schemas[name].Value }
	parts := []runtime.ArtifactPart{
		{Type: "text", Text: "A table of results."},
		{Type: "data", Data: json.RawMessage(`{"rows":[[1,2]]}`)},
		{Type: "file", Bytes: []byte("%PDF-1.7 ..."), MediaType: "application/pdf", Name: "report.pdf"},
		{Type: "file", URL: "https://files.example.com/r.csv", MediaType: "text/csv"},
	}
	chunk := &runtime.ArtifactInfo{ID: "a1", Name: "Results", Description: "The results", Parts: parts,
		Append: true, LastChunk: true, Metadata: json.RawMessage(`{"source":"test"}`)}
	event := decodeJSON(t, runtime.Event{Type: runtime.EventArtifact, ResponseID: "resp_x", SessionID: "s", Artifact: chunk})
	if err := schema("ArtifactChunk").VisitJSON(event["artifact"]); err != nil {
		t.Errorf("a response.artifact chunk does not match ArtifactChunk: %v\n%v", err, event["artifact"])
	}

	item := runtime.OutputItem{Type: runtime.OutputArtifact, ArtifactID: "a1", Name: "Results", Description: "The results",
		Parts: parts, ArtifactMetadata: json.RawMessage(`{"source":"test"}`)}
	env := &runtime.Envelope{ID: "resp_x", SessionID: "s", EnvelopeBody: runtime.EnvelopeBody{Status: "completed",
		Output: []runtime.OutputItem{item}, Metadata: json.RawMessage(`{}`)}}
	completed := decodeJSON(t, runtime.Event{Type: runtime.EventCompleted, Envelope: env})
	output, _ := completed["output"].([]any)
	if len(output) != 1 {
		t.Fatalf("output = %v", completed["output"])
	}
	if err := schema("OutputItem").VisitJSON(output[0]); err != nil {
		t.Errorf("an artifact output item does not match OutputItem: %v\n%v", err, output[0])
	}
	for _, bad := range []map[string]any{
		{"type": "file", "name": "x"},                           // neither bytes nor url
		{"type": "text", "text": "x", "data": 1},                // a text part holds text only
		{"type": "image", "url": "https://files.example.com/x"}, // not a part type
	} {
		if schema("ArtifactPart").VisitJSON(bad) == nil {
			t.Errorf("ArtifactPart accepts %v", bad)
		}
	}
	if !strings.Contains(streamDescription, "`response.artifact`") {
		t.Error("the stream description does not list response.artifact")
	}
}

func decodeJSON(t *testing.T, e runtime.Event) map[string]any {
	t.Helper()
	b, err := e.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWebhookDocument checks the webhook member of POST /responses, the
// callback it names and GET /webhook-key.
func TestWebhookDocument(t *testing.T) {
	doc := mustDocument(t, Options{})
	_, _, op := operationByID(doc, "createAgentResponse")
	request := op.RequestBody.Value.Content.Get("application/json").Schema.Value
	for _, c := range []struct {
		body map[string]any
		ok   bool
	}{
		{map[string]any{"input": "hi", "background": true, "webhook": map[string]any{"url": "https://hooks.example.com/done"}}, true},
		{map[string]any{"input": "hi", "background": true, "webhook": map[string]any{"url": "https://h.example.com", "events": true}}, true},
		{map[string]any{"input": "hi", "background": true, "webhook": map[string]any{"events": true}}, false},
		{map[string]any{"input": "hi", "background": true, "webhook": map[string]any{"url": "https://h.example.com", "secret": "x"}}, false},
	} {
		if err := request.VisitJSON(c.body); (err == nil) != c.ok {
			t.Errorf("%v: err %v, want ok=%v", c.body, err, c.ok)
		}
	}
	cb := op.Callbacks["completionWebhook"]
	if cb == nil || cb.Value.Value("{$request.body#/webhook/url}") == nil {
		t.Fatal("POST /responses has no completionWebhook callback on {$request.body#/webhook/url}")
	}
	post := cb.Value.Value("{$request.body#/webhook/url}").Post
	for _, h := range []string{"Harnest-Signature", "Harnest-Delivery-Id", "Harnest-Response-Id"} {
		if p := post.Parameters.GetByInAndName("header", h); p == nil || !p.Required {
			t.Errorf("the webhook POST lacks the required header %s", h)
		}
	}

	key := mustOperation(t, doc, "/webhook-key", http.MethodGet).Responses.Status(200).Value.Content.Get("application/json")
	if err := key.Schema.Value.VisitJSON(map[string]any{"key": strings.Repeat("ab", 32), "algorithm": "HMAC-SHA256",
		"header": "Harnest-Signature", "signs": "<t>.<body>"}); err != nil {
		t.Errorf("a webhook key as neutral answers it does not match: %v", err)
	}
}

// TestOnBusyDocument checks the onBusy member of POST /responses: its four
// strategies, and a wrong one refused by the schema.
func TestOnBusyDocument(t *testing.T) {
	doc := mustDocument(t, Options{})
	schema := doc.Paths.Value("/responses").Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	onBusy := schema.Properties["onBusy"]
	if onBusy == nil {
		t.Fatal("POST /responses has no onBusy member")
	}
	if got := onBusy.Value.Enum; !reflect.DeepEqual(got, []any{"reject", "enqueue", "interrupt", "rollback"}) {
		t.Fatalf("onBusy enum %v", got)
	}
	for body, valid := range map[string]bool{"enqueue": true, "later": false} {
		err := schema.VisitJSON(map[string]any{"input": "hi", "onBusy": body})
		if (err == nil) != valid {
			t.Errorf("onBusy %q: %v", body, err)
		}
	}
}
