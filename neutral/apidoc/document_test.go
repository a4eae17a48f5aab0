package apidoc

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func mustDocument(t *testing.T, o Options) *openapi3.T {
	t.Helper()
	doc, err := Document(o)
	if err != nil {
		t.Fatalf("Document: %v", err)
	}
	return doc
}

func TestDocumentValidates(t *testing.T) {
	for _, o := range []Options{
		{},
		{AgentName: "demo", Description: "A demo agent."},
		{AgentName: "demo", Live: true, AGUI: true},
	} {
		doc := mustDocument(t, o)
		if err := doc.Validate(context.Background()); err != nil {
			t.Errorf("Validate(%+v): %v", o, err)
		}
		if doc.OpenAPI != "3.0.3" {
			t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
		}
	}
}

func TestDocumentInfo(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "demo", Description: "Answers questions about demos."})
	if got, want := doc.Info.Title, "Harnest: demo"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	desc := doc.Info.Description
	for _, want := range []string{
		"Answers questions about demos.", "POST /responses", "`input`", "`sessionId`",
		"\"stream\": true", "GET /responses/{id}?sessionId=",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("description does not mention %q", want)
		}
	}
	if strings.Contains(desc, "/live") || strings.Contains(desc, "/agui") {
		t.Errorf("description mentions disabled endpoints:\n%s", desc)
	}

	enabled := mustDocument(t, Options{AgentName: "demo", Live: true, AGUI: true, MCP: true, OpenAICompat: true}).Info.Description
	if !strings.Contains(enabled, "/live") || !strings.Contains(enabled, "/agui") || !strings.Contains(enabled, "/mcp") || !strings.Contains(enabled, "/v1/chat/completions") {
		t.Errorf("description does not mention enabled /live and /agui:\n%s", enabled)
	}

	if got := mustDocument(t, Options{}).Info.Title; got != "Harnest: agent" {
		t.Errorf("title without a name = %q", got)
	}
}

func TestDocumentTags(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "demo"})
	var names []string
	for _, tag := range doc.Tags {
		names = append(names, tag.Name)
	}
	if want := []string{"Responses", "Sessions", "Discovery", "Outside agents", "Outside agents: owner", "Schedules", "Triggers", "Evals", "Memory", "Usage"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tags = %v, want %v", names, want)
	}
}

var wantOperations = []struct {
	path, method, id, tag string
}{
	{"/agent", http.MethodGet, "getAgent", "Discovery"},
	{"/readyz", http.MethodGet, "getReadiness", "Discovery"},
	{"/sessions", http.MethodPost, "createSession", "Sessions"},
	{"/sessions", http.MethodGet, "listSessions", "Sessions"},
	{"/sessions/{sessionId}", http.MethodGet, "getSession", "Sessions"},
	{"/sessions/{sessionId}", http.MethodPatch, "updateSession", "Sessions"},
	{"/sessions/{sessionId}", http.MethodDelete, "deleteSession", "Sessions"},
	{"/sessions/{sessionId}/messages", http.MethodGet, "listSessionMessages", "Sessions"},
	{"/sessions/{sessionId}/responses", http.MethodGet, "listSessionResponses", "Sessions"},
	{"/responses", http.MethodPost, "createAgentResponse", "Responses"},
	{"/webhook-key", http.MethodGet, "getWebhookKey", "Responses"},
	{"/responses/{responseId}", http.MethodGet, "getAgentResponse", "Responses"},
	{"/responses/{responseId}/events", http.MethodGet, "followAgentResponseEvents", "Responses"},
	{"/responses/{responseId}/cancel", http.MethodPost, "cancelAgentResponse", "Responses"},
	{"/responses/{responseId}/steer", http.MethodPost, "steerAgentResponse", "Responses"},
	{"/sessions/{sessionId}/events", http.MethodGet, "followSessionEvents", "Sessions"},
	{"/approvals/{approvalId}", http.MethodPost, "decideApproval", "Responses"},
	{"/client-tools/{requestId}", http.MethodPost, "submitClientToolOutput", "Responses"},
	{"/sessions/{sessionId}/assets", http.MethodPost, "uploadSessionAsset", "Sessions"},
	{"/sessions/{sessionId}/assets/{assetId}", http.MethodGet, "getSessionAsset", "Sessions"},
	{"/sessions/{sessionId}/assets/{assetId}", http.MethodHead, "headSessionAsset", "Sessions"},
	{"/sessions/{sessionId}/assets/{assetId}", http.MethodDelete, "deleteSessionAsset", "Sessions"},
	{"/schedules", http.MethodPost, "createSchedule", "Schedules"},
	{"/schedules", http.MethodGet, "listSchedules", "Schedules"},
	{"/schedules/{scheduleId}", http.MethodGet, "getSchedule", "Schedules"},
	{"/schedules/{scheduleId}", http.MethodPatch, "updateSchedule", "Schedules"},
	{"/schedules/{scheduleId}", http.MethodDelete, "deleteSchedule", "Schedules"},
	{"/schedules/{scheduleId}/pause", http.MethodPost, "pauseSchedule", "Schedules"},
	{"/schedules/{scheduleId}/resume", http.MethodPost, "resumeSchedule", "Schedules"},
	{"/schedules/{scheduleId}/run", http.MethodPost, "runSchedule", "Schedules"},
	{"/schedules/{scheduleId}/fires", http.MethodGet, "listScheduleFires", "Schedules"},
	{"/triggers/{name}", http.MethodPost, "deliverTrigger", "Triggers"},
	{"/evals/last", http.MethodGet, "getLastEvalRun", "Evals"},
	{"/sessions/{sessionId}/compact", http.MethodPost, "compactSession", "Sessions"},
	{"/usage", http.MethodGet, "getUsage", "Usage"},
}

func TestDocumentPaths(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "demo"})
	for _, w := range wantOperations {
		op := doc.Paths.Value(w.path)
		if op == nil {
			t.Errorf("missing path %s", w.path)
			continue
		}
		o := op.GetOperation(w.method)
		if o == nil {
			t.Errorf("missing %s %s", w.method, w.path)
			continue
		}
		if o.OperationID != w.id {
			t.Errorf("%s %s operationId = %q, want %q", w.method, w.path, o.OperationID, w.id)
		}
		if !reflect.DeepEqual(o.Tags, []string{w.tag}) {
			t.Errorf("%s %s tags = %v, want [%s]", w.method, w.path, o.Tags, w.tag)
		}
		if o.Summary == "" {
			t.Errorf("%s %s has no summary", w.method, w.path)
		}
	}
	// The neutral paths (wantOperations, one path per distinct entry) and
	// the relay's.
	neutralPaths := map[string]bool{}
	for _, w := range wantOperations {
		neutralPaths[w.path] = true
	}
	for _, w := range memoryOperations { // memory_test.go
		neutralPaths[w.path] = true
	}
	if got, want := doc.Paths.Len(), len(neutralPaths)+len(relayPaths); got != want {
		t.Errorf("document has %d paths, want %d: %v", got, want, doc.Paths.InMatchingOrder())
	}
}

// operationByID finds an operation anywhere in the document.
func operationByID(doc *openapi3.T, id string) (path, method string, op *openapi3.Operation) {
	for p, item := range doc.Paths.Map() {
		for m, o := range item.Operations() {
			if o.OperationID == id {
				return p, m, o
			}
		}
	}
	return "", "", nil
}

func TestCreateAgentResponseRequest(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "demo"})
	path, method, op := operationByID(doc, "createAgentResponse")
	if op == nil {
		t.Fatal("no operation createAgentResponse")
	}
	if path != "/responses" || method != http.MethodPost {
		t.Errorf("createAgentResponse is %s %s", method, path)
	}
	if op.Summary != "Send a message to the agent" {
		t.Errorf("summary = %q", op.Summary)
	}

	media := op.RequestBody.Value.Content.Get("application/json")
	if media == nil {
		t.Fatal("request body has no application/json content")
	}
	schema := media.Schema.Value
	if !reflect.DeepEqual(schema.Required, []string{"input"}) {
		t.Errorf("required = %v, want [input]", schema.Required)
	}
	if has := schema.AdditionalProperties.Has; has == nil || *has {
		t.Errorf("request schema must set additionalProperties: false")
	}
	for name, typ := range map[string]string{"sessionId": "string", "stream": "boolean", "background": "boolean", "metadata": "object"} {
		prop := schema.Properties[name]
		if prop == nil || !prop.Value.Type.Is(typ) {
			t.Errorf("property %s is not a %s", name, typ)
		}
	}
	// input is a non-blank string or an array of content parts.
	input := schema.Properties["input"].Value
	if len(input.OneOf) != 2 {
		t.Fatalf("input oneOf has %d alternatives, want 2", len(input.OneOf))
	}
	if text := input.OneOf[0].Value; !text.Type.Is("string") || text.MinLength != 1 || text.Pattern == "" {
		t.Errorf("input's first alternative must be a non-blank string")
	}
	if parts := input.OneOf[1].Value; !parts.Type.Is("array") || parts.MinItems != 1 || len(parts.Items.Value.OneOf) != 4 {
		t.Errorf("input's second alternative must be a non-empty array of text, media, file-by-URL or data parts")
	}
	for _, name := range []string{"stream", "background"} {
		if d := schema.Properties[name].Value.Default; d != false {
			t.Errorf("%s default = %v, want false", name, d)
		}
	}
	if !strings.Contains(schema.Properties["background"].Value.Description, "harnest extension") &&
		!strings.Contains(schema.Properties["background"].Value.Description, "Harnest extension") {
		t.Errorf("background is not marked as a harnest extension")
	}

	wantExamples := map[string]map[string]any{
		"newConversation": {"input": "Hello! What can you help me with?"},
		"stream":          {"input": "Hello!", "stream": true},
		"followUp":        {"input": "Tell me more.", "sessionId": "REPLACE_WITH_RETURNED_SESSION_ID"},
	}
	if len(media.Examples) != len(wantExamples) {
		t.Errorf("got %d examples, want %d", len(media.Examples), len(wantExamples))
	}
	for name, want := range wantExamples {
		ex := media.Examples[name]
		if ex == nil || ex.Value == nil {
			t.Errorf("missing example %s", name)
			continue
		}
		if !reflect.DeepEqual(ex.Value.Value, want) {
			t.Errorf("example %s = %#v, want %#v", name, ex.Value.Value, want)
		}
	}
}

func TestCreateAgentResponseReplies(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "demo"})
	_, _, op := operationByID(doc, "createAgentResponse")
	if op == nil {
		t.Fatal("no operation createAgentResponse")
	}
	for _, code := range []int{200, 400, 404, 409, 413, 415, 502, 503, 504} {
		if op.Responses.Status(code) == nil {
			t.Errorf("missing %d response", code)
		}
	}

	ok := op.Responses.Status(200).Value
	jsonMedia := ok.Content["application/json"]
	if jsonMedia == nil || jsonMedia.Schema.Ref != "#/components/schemas/ResponseEnvelope" {
		t.Errorf("200 application/json does not use ResponseEnvelope")
	}
	sse := ok.Content["text/event-stream"]
	if sse == nil {
		t.Fatal("200 has no text/event-stream content")
	}
	if !sse.Schema.Value.Type.Is("string") {
		t.Errorf("event stream schema is not a string")
	}
	stream, _ := sse.Example.(string)
	for _, want := range []string{"event: response.created\n", "event: response.text.delta\n", "event: response.completed\n"} {
		if !strings.Contains(stream, want) {
			t.Errorf("stream example lacks %q", want)
		}
	}
	if strings.Index(stream, "response.created") > strings.Index(stream, "response.completed") {
		t.Errorf("stream example does not start with response.created")
	}
	for _, event := range []string{
		"response.created", "response.text.delta", "response.thinking.delta",
		"response.agent_activity", "response.agent_metadata", "response.tool_call",
		"response.tool_result", "response.state_delta", "response.retracted", "response.steered", "response.completed", "`error`",
	} {
		if !strings.Contains(sse.Schema.Value.Description, event) {
			t.Errorf("event stream description does not list %s", event)
		}
	}
}

func TestResponseEnvelopeSchema(t *testing.T) {
	doc := mustDocument(t, Options{})
	env := doc.Components.Schemas["ResponseEnvelope"].Value
	want := []string{"id", "sessionId", "status", "outputText", "output", "metadata"}
	if !reflect.DeepEqual(env.Required, want) {
		t.Errorf("required = %v, want %v", env.Required, want)
	}
	status := env.Properties["status"].Value.Enum
	if len(status) != 7 || status[6] != "queued" { // queued: onBusy
		t.Errorf("status enum = %v", status)
	}
	for _, name := range []string{"usage", "result", "requiredAction", "error"} {
		if env.Properties[name] == nil {
			t.Errorf("missing optional property %s", name)
		}
	}
	if env.Properties["output"].Value.Items.Ref != "#/components/schemas/OutputItem" {
		t.Errorf("output items do not use OutputItem")
	}
	item := doc.Components.Schemas["OutputItem"].Value
	if item.AdditionalProperties.Has == nil || !*item.AdditionalProperties.Has {
		t.Errorf("OutputItem must allow additional properties")
	}
	if got := len(item.Properties["type"].Value.Enum); got != 10 {
		t.Errorf("OutputItem type enum has %d values, want 10", got)
	}
	for _, name := range []string{"artifactId", "description", "parts", "metadata"} {
		if item.Properties[name] == nil {
			t.Errorf("OutputItem lacks the artifact field %s", name)
		}
	}
	session := doc.Components.Schemas["Session"].Value
	if created := session.Properties["createdAt"].Value; !created.Nullable || created.Format != "date-time" {
		t.Errorf("Session.createdAt must be a nullable date-time")
	}
}

func TestSessionBodies(t *testing.T) {
	doc := mustDocument(t, Options{})
	create := doc.Paths.Value("/sessions").Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	if has := create.AdditionalProperties.Has; has == nil || *has {
		t.Errorf("create-session body must reject unknown fields")
	}
	if len(create.Required) != 0 || create.Properties["id"] == nil || create.Properties["state"] == nil {
		t.Errorf("create-session body must have optional id and state")
	}
	patch := doc.Paths.Value("/sessions/{sessionId}").Patch.RequestBody.Value.Content.Get("application/json").Schema.Value
	if !reflect.DeepEqual(patch.Required, []string{"stateDelta"}) || len(patch.Properties) != 1 {
		t.Errorf("patch body must be exactly {stateDelta}")
	}
	limit := doc.Paths.Value("/sessions").Get.Parameters.GetByInAndName("query", "limit")
	if limit == nil || *limit.Schema.Value.Min != 1 || *limit.Schema.Value.Max != 100 || limit.Schema.Value.Default != 100 {
		t.Errorf("limit must be an integer 1..100 defaulting to 100")
	}
	poll := doc.Paths.Value("/responses/{responseId}").Get.Parameters.GetByInAndName("query", "sessionId")
	if poll == nil || !poll.Required {
		t.Errorf("GET /responses/{responseId} must require the sessionId query parameter")
	}
}

func TestErrorsUseErrorSchema(t *testing.T) {
	doc := mustDocument(t, Options{})
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for code, resp := range op.Responses.Map() {
				n, err := strconv.Atoi(code)
				if err != nil || n < 400 {
					continue
				}
				media := resp.Value.Content.Get("application/json")
				want := "#/components/schemas/Error"
				if method == "POST" && path == "/api/outside-agents/v1/replies" && code == "410" {
					want = "#/components/schemas/RelayExpired" // {accepted: false, code, detail}
				}
				if media == nil || media.Schema.Ref != want {
					t.Errorf("%s %s %s does not use the Error schema", method, path, code)
				}
			}
		}
	}
}

func TestSecurity(t *testing.T) {
	doc := mustDocument(t, Options{})
	scheme := doc.Components.SecuritySchemes["bearerAuth"]
	if scheme == nil || scheme.Value.Type != "http" || scheme.Value.Scheme != "bearer" {
		t.Fatalf("bearerAuth scheme missing or wrong: %+v", scheme)
	}
	want := openapi3.SecurityRequirements{{"bearerAuth": []string{}}, {}}
	if !reflect.DeepEqual(doc.Security, want) {
		t.Errorf("security = %v, want %v", doc.Security, want)
	}
}
