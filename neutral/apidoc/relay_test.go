package apidoc

import (
	"context"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/harnest/harnest/relay"
)

func isRelayPath(path string) bool {
	return strings.HasPrefix(path, relay.APIPrefix) || strings.HasPrefix(path, relay.OwnerPrefix)
}

// relayPaths are the relay's operations, as relay.Register mounts them,
// with the statuses each must document. (That the routes a server serves
// match the document it serves is relay's TestDocumentMatchesRoutes.)
var relayPaths = map[string]map[string][]int{
	"/api/outside-agents/v1/pairings/exchange": {"POST": {201, 400, 401, 413, 415, 422, 429, 503}},
	"/api/outside-agents/v1/inbox":             {"GET": {200, 401, 429, 503}},
	"/api/outside-agents/v1/replies":           {"POST": {200, 400, 401, 404, 409, 410, 413, 415, 422, 429, 503}},
	"/api/outside-agents/v1/session/status":    {"GET": {200, 401, 429, 503}},
	"/api/outside-agents/v1/notices":           {"POST": {202, 400, 401, 413, 415, 422, 429, 503}},
	"/api/outside-agents/v1/tools/call":        {"POST": {200, 202, 400, 401, 403, 404, 409, 413, 415, 422, 429, 503}},

	"/owner/outside-agents/pairings":                                {"POST": {201, 400, 401, 404, 413, 415, 422, 503}},
	"/owner/outside-agents/participants":                            {"GET": {200, 401, 404, 503}},
	"/owner/outside-agents/participants/{participantId}/pause":      {"POST": {200, 401, 404, 503}},
	"/owner/outside-agents/participants/{participantId}/resume":     {"POST": {200, 401, 404, 503}},
	"/owner/outside-agents/participants/{participantId}/disconnect": {"POST": {204, 401, 404, 503}},
	"/owner/outside-agents/participants/{participantId}":            {"DELETE": {204, 401, 404, 503}},
	"/owner/outside-agents/feed":                                    {"GET": {200, 400, 401, 404, 503}},
	"/owner/outside-agents/feed/stream":                             {"GET": {200, 400, 401, 404, 503}},
	"/owner/outside-agents/participants/{participantId}/grants": {
		"GET":    {200, 401, 404, 503},
		"POST":   {200, 400, 401, 404, 413, 415, 422, 503},
		"DELETE": {204, 401, 404, 503},
	},
	"/owner/outside-agents/participants/{participantId}/tool-calls": {"GET": {200, 400, 401, 404, 503}},
	"/owner/outside-agents/tool-approvals/{approvalId}":             {"POST": {200, 400, 401, 404, 409, 413, 415, 422, 503}},
	"/owner/outside-agents/recipes":                                 {"GET": {200, 401, 404}},
}

func TestRelayPathsExist(t *testing.T) {
	doc := mustDocument(t, Options{})
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	var documented []string
	for path := range doc.Paths.Map() {
		if isRelayPath(path) {
			documented = append(documented, path)
		}
	}
	if len(documented) != len(relayPaths) {
		sort.Strings(documented)
		t.Errorf("relay paths documented: %v, want %d", documented, len(relayPaths))
	}
	for path, methods := range relayPaths {
		item := doc.Paths.Value(path)
		if item == nil {
			t.Errorf("missing path %s", path)
			continue
		}
		if len(item.Operations()) != len(methods) {
			t.Errorf("%s has %d operations, want %d", path, len(item.Operations()), len(methods))
		}
		for method, statuses := range methods {
			op := item.GetOperation(method)
			if op == nil {
				t.Errorf("missing %s %s", method, path)
				continue
			}
			if op.Extensions["x-protocol"] != "relay-poll-v1" {
				t.Errorf("%s %s is not marked x-protocol: relay-poll-v1", method, path)
			}
			wantTag := "Outside agents"
			if strings.HasPrefix(path, relay.OwnerPrefix) {
				wantTag = "Outside agents: owner"
			}
			if !reflect.DeepEqual(op.Tags, []string{wantTag}) || op.Summary == "" || op.OperationID == "" {
				t.Errorf("%s %s: tags %v, summary %q, operationId %q", method, path, op.Tags, op.Summary, op.OperationID)
			}
			var got []int
			for code := range op.Responses.Map() {
				n, _ := strconv.Atoi(code)
				got = append(got, n)
			}
			sort.Ints(got)
			if !reflect.DeepEqual(got, statuses) {
				t.Errorf("%s %s statuses %v, want %v", method, path, got, statuses)
			}
			if r := op.Responses.Status(429); r != nil && r.Value.Headers["Retry-After"] == nil {
				t.Errorf("%s %s: 429 without Retry-After", method, path)
			}
			// Who may call: the session token on the relay API (none for the
			// exchange, the callback token for tools), the server's bearer
			// token on the owner endpoints.
			switch {
			case path == "/api/outside-agents/v1/pairings/exchange":
				if op.Security == nil || !reflect.DeepEqual(*op.Security, openapi3.SecurityRequirements{{}}) {
					t.Errorf("%s %s security %v, want none", method, path, op.Security)
				}
			case path == "/api/outside-agents/v1/tools/call":
				if op.Security == nil || !reflect.DeepEqual(*op.Security, openapi3.SecurityRequirements{{"relayCallback": []string{}}}) {
					t.Errorf("%s %s security %v, want relayCallback", method, path, op.Security)
				}
			case strings.HasPrefix(path, relay.APIPrefix):
				if op.Security == nil || !reflect.DeepEqual(*op.Security, openapi3.SecurityRequirements{{"relaySession": []string{}}}) {
					t.Errorf("%s %s security %v, want relaySession", method, path, op.Security)
				}
			default:
				if op.Security != nil {
					t.Errorf("%s %s overrides the document's security", method, path)
				}
			}
		}
	}
	for _, name := range []string{"relaySession", "relayCallback"} {
		if doc.Components.SecuritySchemes[name] == nil {
			t.Errorf("no %s security scheme", name)
		}
	}
}

// TestRelayBodySchemas checks the request schemas against bodies
// the relay accepts and rejects.
func TestRelayBodySchemas(t *testing.T) {
	doc := mustDocument(t, Options{})
	schema := func(name string) *openapi3.Schema { return doc.Components.Schemas[name].Value }
	cases := []struct {
		schema string
		body   any
		ok     bool
	}{
		{"RelayExchangeRequest", map[string]any{"code": "K7QM-X2PA-9RTW", "card": map[string]any{"name": "My CLI", "kind": "cli"}}, true},
		{"RelayExchangeRequest", map[string]any{"code": "K7QM-X2PA-9RTW", "card": map[string]any{"name": "My CLI", "kind": "CLI"}}, false},
		{"RelayExchangeRequest", map[string]any{"code": "K7QM", "card": map[string]any{"name": "x", "kind": "cli"}, "extra": 1}, false},
		{"RelayReplyRequest", map[string]any{"relay_id": "r1", "text": "hello"}, true},
		{"RelayReplyRequest", map[string]any{"relay_id": "r1", "text": strings.Repeat("é", 4001)}, false},
		{"RelayNoticeRequest", map[string]any{"text": "Back soon."}, true},
		{"RelayNoticeRequest", map[string]any{"text": "a", "item": map[string]any{"type": "say", "text": "hi"}}, false},
		{"RelayNoticeRequest", map[string]any{"item": map[string]any{"type": "say", "text": "hi"}}, true},
		{"RelayNoticeRequest", map[string]any{"item": map[string]any{"type": "progress", "step": 2, "total": 5, "label": "tests"}}, true},
		{"RelayNoticeRequest", map[string]any{"item": map[string]any{"type": "card", "title": "Done", "lines": []any{"a"}, "link": "/dashboard"}}, true},
		{"RelayNoticeRequest", map[string]any{"item": map[string]any{"type": "card", "title": "Done", "link": "//evil.example"}}, false},
		{"RelayNoticeRequest", map[string]any{"item": map[string]any{"type": "gesture", "name": "wave"}}, true},
		{"RelayNoticeRequest", map[string]any{"item": map[string]any{"type": "gesture", "name": "dance"}}, false},
		{"RelayNoticeRequest", map[string]any{"item": map[string]any{"type": "sing", "text": "la"}}, false},
		{"RelayPairingRequest", map[string]any{"name": "My CLI", "kind": "cli"}, true},
		{"RelayPairingRequest", map[string]any{"name": "My CLI"}, false},
		{"RelayPairingRequest", map[string]any{"name": "My CLI", "recipe": "codex"}, true},
		{"RelayPairingRequest", map[string]any{"name": "My CLI", "recipe": "codex", "kind": "codex"}, true},
		{"RelayPairingRequest", map[string]any{"name": "My CLI", "recipe": "codex", "extra": 1}, false},
		{"RelayToolCallRequest", map[string]any{"run_note": "rn1.a.b", "tool": "lookup", "arguments": map[string]any{"q": "x"}, "call_id": "c1"}, true},
		{"RelayToolCallRequest", map[string]any{"run_note": "rn1.a.b", "tool": "lookup", "call_id": "c1"}, true},
		{"RelayToolCallRequest", map[string]any{"run_note": "rn1.a.b", "tool": "lookup", "call_id": "c 1"}, false},
		{"RelayToolCallRequest", map[string]any{"run_note": "rn1.a.b", "tool": "lookup", "arguments": []any{}, "call_id": "c1"}, false},
		{"RelayToolCallRequest", map[string]any{"tool": "lookup", "call_id": "c1"}, false},
		{"RelayGrantsRequest", map[string]any{"tools": []any{"lookup", "clock__now"}}, true},
		{"RelayGrantsRequest", map[string]any{"tools": []any{}}, true},
		{"RelayGrantsRequest", map[string]any{"tools": "lookup"}, false},
		{"RelayToolDecision", map[string]any{"decision": "approve"}, true},
		{"RelayToolDecision", map[string]any{"decision": "maybe"}, false},
		{"RelayLook", map[string]any{"look": "owl", "colors": map[string]any{"line": "#123", "background": "#a0b1c2"}, "display_name": "Owl"}, true},
		{"RelayLook", map[string]any{"colors": map[string]any{"line": "red"}}, false},
	}
	for i, c := range cases {
		err := schema(c.schema).VisitJSON(c.body)
		if (err == nil) != c.ok {
			t.Errorf("case %d: %s %v: err %v, want ok=%v", i, c.schema, c.body, err, c.ok)
		}
	}
}
