package apidoc

import (
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/harnest/harnest/internal/media"
)

// newOperations are the routes added for long runs, waits and assets, with
// the statuses each must document and the media type of its 200/201/206.
var newOperations = []struct {
	path, method string
	codes        []int
	success      string // media type of the success reply; "" for none
	extension    bool   // must be marked as a harnest extension
}{
	{"/responses/{responseId}/events", http.MethodGet, []int{200, 400, 404}, "text/event-stream", true},
	{"/responses/{responseId}/cancel", http.MethodPost, []int{200, 400, 404}, "application/json", true},
	{"/responses/{responseId}/steer", http.MethodPost, []int{202, 400, 404, 409, 413, 415}, "application/json", true},
	{"/sessions/{sessionId}/events", http.MethodGet, []int{200, 400, 404}, "text/event-stream", true},
	{"/approvals/{approvalId}", http.MethodPost, []int{200, 400, 404, 409, 413, 415, 504}, "application/json", true},
	{"/client-tools/{requestId}", http.MethodPost, []int{200, 400, 404, 409, 413, 415, 504}, "application/json", true},
	{"/sessions/{sessionId}/assets", http.MethodPost, []int{201, 400, 404, 413, 415}, "application/json", false},
	{"/sessions/{sessionId}/assets/{assetId}", http.MethodGet, []int{200, 206, 404, 416}, "application/octet-stream", false},
	{"/sessions/{sessionId}/assets/{assetId}", http.MethodHead, []int{200, 206, 404, 416}, "", false},
	{"/sessions/{sessionId}/assets/{assetId}", http.MethodDelete, []int{204, 404}, "", false},
	{"/webhook-key", http.MethodGet, []int{200, 503}, "application/json", true},
	{"/schedules", http.MethodPost, []int{201, 400, 413, 429}, "application/json", true},
	{"/schedules/{scheduleId}", http.MethodPatch, []int{200, 400, 404, 409, 413}, "application/json", true},
	{"/schedules/{scheduleId}", http.MethodDelete, []int{204, 404}, "", true},
	{"/schedules/{scheduleId}/run", http.MethodPost, []int{202, 404}, "application/json", true},
	{"/schedules/{scheduleId}/fires", http.MethodGet, []int{200, 400, 404}, "application/json", true},
	{"/usage", http.MethodGet, []int{200, 400, 404}, "application/json", true},
}

func mustOperation(t *testing.T, doc *openapi3.T, path, method string) *openapi3.Operation {
	t.Helper()
	item := doc.Paths.Value(path)
	if item == nil {
		t.Fatalf("missing path %s", path)
	}
	op := item.GetOperation(method)
	if op == nil {
		t.Fatalf("missing %s %s", method, path)
	}
	return op
}

func TestNewOperations(t *testing.T) {
	doc := mustDocument(t, Options{})
	for _, w := range newOperations {
		t.Run(w.method+" "+w.path, func(t *testing.T) {
			op := mustOperation(t, doc, w.path, w.method)
			var got []int
			for code := range op.Responses.Map() {
				n, err := strconv.Atoi(code)
				if err != nil {
					t.Fatalf("response key %q is not a status", code)
				}
				got = append(got, n)
			}
			sort.Ints(got)
			for _, code := range w.codes {
				if op.Responses.Status(code) == nil {
					t.Errorf("missing %d response (has %v)", code, got)
				}
			}
			success := op.Responses.Status(w.codes[0]).Value
			if w.success == "" {
				if len(success.Content) != 0 {
					t.Errorf("%d reply has content %v, want none", w.codes[0], success.Content)
				}
			} else if success.Content.Get(w.success) == nil {
				t.Errorf("%d reply lacks %s content", w.codes[0], w.success)
			}
			marked := strings.Contains(strings.ToLower(op.Description), "harnest extension")
			if marked != w.extension {
				t.Errorf("marked as harnest extension = %v, want %v: %q", marked, w.extension, op.Description)
			}
			if op.Summary == "" || op.OperationID == "" {
				t.Errorf("no summary or operationId")
			}
		})
	}
}

func TestEventsOperation(t *testing.T) {
	op := mustOperation(t, mustDocument(t, Options{}), "/responses/{responseId}/events", http.MethodGet)
	session := op.Parameters.GetByInAndName("query", "sessionId")
	if session == nil || !session.Required {
		t.Errorf("sessionId must be a required query parameter")
	}
	for _, p := range []*openapi3.Parameter{
		op.Parameters.GetByInAndName("query", "after"),
		op.Parameters.GetByInAndName("header", "Last-Event-ID"),
	} {
		if p == nil {
			t.Fatal("missing after or Last-Event-ID")
		}
		s := p.Schema.Value
		if p.Required || !s.Type.Is("integer") || s.Min == nil || *s.Min != -1 {
			t.Errorf("%s must be an optional integer from -1", p.Name)
		}
	}
	sse := op.Responses.Status(200).Value.Content.Get("text/event-stream")
	if example, _ := sse.Example.(string); !strings.Contains(example, "id: ") || !strings.Contains(example, "event: response.completed") {
		t.Errorf("event stream example lacks ids or the completion:\n%s", example)
	}
	for _, want := range []string{"any replica", "never cancels", "approval.requested"} {
		if !strings.Contains(op.Description, want) {
			t.Errorf("description does not say %q", want)
		}
	}
}

func TestCancelOperation(t *testing.T) {
	op := mustOperation(t, mustDocument(t, Options{}), "/responses/{responseId}/cancel", http.MethodPost)
	if op.RequestBody != nil {
		t.Errorf("cancel takes no body")
	}
	if p := op.Parameters.GetByInAndName("query", "sessionId"); p == nil || !p.Required {
		t.Errorf("sessionId must be a required query parameter")
	}
	if ref := op.Responses.Status(200).Value.Content.Get("application/json").Schema.Ref; ref != schemaPrefix+"ResponseEnvelope" {
		t.Errorf("200 is %q, want the envelope", ref)
	}
	for _, want := range []string{"Idempotent", "any replica"} {
		if !strings.Contains(op.Description, want) {
			t.Errorf("description does not say %q", want)
		}
	}
}

func TestApprovalOperation(t *testing.T) {
	op := mustOperation(t, mustDocument(t, Options{}), "/approvals/{approvalId}", http.MethodPost)
	media := op.RequestBody.Value.Content.Get("application/json")
	if media.Schema.Ref != schemaPrefix+"ApprovalAnswer" {
		t.Fatalf("body is %q, want the ApprovalAnswer", media.Schema.Ref)
	}
	// One strict variant per decision, with the members it takes.
	want := map[string][]string{"approve": {"decision"}, "deny": {"decision"}, "edit": {"decision", "arguments"}, "respond": {"decision", "result"}}
	for _, v := range media.Schema.Value.OneOf {
		variant := v.Value
		decision := variant.Properties["decision"].Value.Enum[0].(string)
		if !reflect.DeepEqual(variant.Required, want[decision]) || variant.AdditionalProperties.Has == nil || *variant.AdditionalProperties.Has {
			t.Errorf("%s variant: required %v", decision, variant.Required)
		}
		delete(want, decision)
	}
	if len(want) != 0 {
		t.Errorf("no variant for %v", want)
	}
	for name, ex := range media.Examples {
		if err := media.Schema.Value.VisitJSON(ex.Value.Value); err != nil {
			t.Errorf("example %s does not match the answer schema: %v", name, err)
		}
	}
	if err := media.Schema.Value.VisitJSON(map[string]any{"decision": "edit"}); err == nil {
		t.Errorf("an edit without arguments matches the answer schema")
	}
	ok := op.Responses.Status(200).Value.Content.Get("application/json")
	var refs []string
	for _, s := range ok.Schema.Value.OneOf {
		refs = append(refs, s.Ref)
	}
	if want := []string{schemaPrefix + "ResponseEnvelope", schemaPrefix + "ApprovalDenial", schemaPrefix + "RelayToolCall"}; !reflect.DeepEqual(refs, want) {
		t.Errorf("200 oneOf = %v, want %v", refs, want)
	}
	if ok.Examples["approved"].Value.Value.(map[string]any)["approvalId"] == nil {
		t.Errorf("approved example lacks approvalId")
	}
	if got := ok.Examples["denied"].Value.Value; !reflect.DeepEqual(got, map[string]any{
		"id": "approval_9a8b7c6d5e4f40312a1b2c3d4e5f6071", "status": "denied",
	}) {
		t.Errorf("denied example %v", got)
	}
	denial := mustDocument(t, Options{}).Components.Schemas["ApprovalDenial"].Value
	if !reflect.DeepEqual(denial.Required, []string{"id", "status"}) || !reflect.DeepEqual(denial.Properties["status"].Value.Enum, []any{"denied"}) {
		t.Errorf("ApprovalDenial must be {id, status: denied}")
	}
	for _, want := range []string{"already decided", "expired"} {
		if !strings.Contains(*op.Responses.Status(409).Value.Description, want) {
			t.Errorf("409 does not say %q", want)
		}
	}
}

func TestClientToolOperation(t *testing.T) {
	op := mustOperation(t, mustDocument(t, Options{}), "/client-tools/{requestId}", http.MethodPost)
	body := op.RequestBody.Value.Content.Get("application/json").Schema.Value
	if !reflect.DeepEqual(body.Required, []string{"output"}) || len(body.Properties) != 1 ||
		body.AdditionalProperties.Has == nil || *body.AdditionalProperties.Has {
		t.Errorf("body must be exactly {output}")
	}
	if out := body.Properties["output"].Value; out.Type != nil && len(*out.Type) != 0 || !out.Nullable {
		t.Errorf("output must accept any JSON value, null included")
	}
	if ref := op.Responses.Status(200).Value.Content.Get("application/json").Schema.Ref; ref != schemaPrefix+"ResponseEnvelope" {
		t.Errorf("200 is %q, want the envelope", ref)
	}
}

func TestAssetOperations(t *testing.T) {
	doc := mustDocument(t, Options{})
	upload := mustOperation(t, doc, "/sessions/{sessionId}/assets", http.MethodPost)
	body := upload.RequestBody.Value
	if !body.Required {
		t.Errorf("upload body must be required")
	}
	var types []string
	for mt, c := range body.Content {
		types = append(types, mt)
		if s := c.Schema.Value; !s.Type.Is("string") || s.Format != "binary" {
			t.Errorf("%s upload is not a binary string", mt)
		}
		if !media.Supported(mt) {
			t.Errorf("%s is documented but not supported", mt)
		}
	}
	if body.Content.Get("application/octet-stream") == nil || len(types) != len(assetMediaTypes) {
		t.Errorf("upload content types = %v", types)
	}
	if ref := upload.Responses.Status(201).Value.Content.Get("application/json").Schema.Ref; ref != schemaPrefix+"Asset" {
		t.Errorf("201 is %q, want Asset", ref)
	}
	asset := doc.Components.Schemas["Asset"].Value
	if !reflect.DeepEqual(asset.Required, []string{"assetId", "mediaType", "sizeBytes"}) {
		t.Errorf("Asset required = %v", asset.Required)
	}
	for _, name := range []string{"width", "height", "durationSeconds", "pageCount", "frameCount", "channels", "sampleRateHz"} {
		if asset.Properties[name] == nil {
			t.Errorf("Asset lacks %s", name)
		}
	}

	for _, method := range []string{http.MethodGet, http.MethodHead} {
		op := mustOperation(t, doc, "/sessions/{sessionId}/assets/{assetId}", method)
		if p := op.Parameters.GetByInAndName("header", "Range"); p == nil || p.Required {
			t.Errorf("%s: Range must be an optional header", method)
		}
		for code, want := range map[int][]string{
			200: {"Accept-Ranges", "Content-Length"},
			206: {"Accept-Ranges", "Content-Length", "Content-Range"},
			416: {"Content-Range"},
		} {
			for _, h := range want {
				if op.Responses.Status(code).Value.Headers[h] == nil {
					t.Errorf("%s %d lacks header %s", method, code, h)
				}
			}
		}
		if _, has := op.Responses.Status(200).Value.Headers["Content-Range"]; has {
			t.Errorf("%s 200 must not send Content-Range", method)
		}
		if method == http.MethodGet {
			for _, code := range []int{200, 206} {
				c := op.Responses.Status(code).Value.Content
				if len(c) != len(assetMediaTypes) || c.Get("image/png").Schema.Value.Format != "binary" {
					t.Errorf("GET %d content = %v", code, c)
				}
			}
		}
	}
}

func TestEnvelopeInteractiveFields(t *testing.T) {
	doc := mustDocument(t, Options{})
	env := doc.Components.Schemas["ResponseEnvelope"].Value
	action := env.Properties["requiredAction"].Value
	if want := []string{"type", "id", "callId", "expiresAt"}; !reflect.DeepEqual(action.Required, want) {
		t.Errorf("requiredAction required = %v, want %v", action.Required, want)
	}
	if enum := action.Properties["type"].Value.Enum; !reflect.DeepEqual(enum, []any{"human_approval", "client_tool"}) {
		t.Errorf("requiredAction type enum = %v", enum)
	}
	for _, name := range []string{"action", "message", "name", "arguments"} {
		if action.Properties[name] == nil {
			t.Errorf("requiredAction lacks %s", name)
		}
	}
	for _, name := range []string{"approvalId", "clientToolId"} {
		if p := env.Properties[name]; p == nil || !p.Value.Type.Is("string") {
			t.Errorf("envelope lacks string %s", name)
		}
	}
	if e := env.Properties["error"]; e == nil || !reflect.DeepEqual(e.Value.Required, []string{"code"}) {
		t.Errorf("envelope error must be {code}")
	}

	_, _, op := operationByID(doc, "createAgentResponse")
	ok := op.Responses.Status(200).Value
	ex := ok.Content.Get("application/json").Examples["requiresAction"]
	if ex == nil {
		t.Fatal("no requiresAction example")
	}
	if v := ex.Value.Value.(map[string]any); v["status"] != "requires_action" || v["requiredAction"] == nil {
		t.Errorf("requiresAction example %v", v)
	}
	for _, h := range []string{"Harnest-Response-Id", "Harnest-Session-Id"} {
		if ok.Headers[h] == nil {
			t.Errorf("200 lacks header %s", h)
		}
	}
}
