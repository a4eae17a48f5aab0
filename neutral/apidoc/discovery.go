package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// The discovery operations: the agent card and the readiness check.

func (b *builder) addDiscovery(doc *openapi3.T, o Options) {
	// public is an operation that needs no credentials.
	public := func(id, summary, desc string) *operation {
		return b.op(tagDiscovery, id, summary, "Public: needs no credentials. "+desc).security(&openapi3.SecurityRequirements{})
	}
	doc.AddOperation("/agent", http.MethodGet, public("getAgent", "Describe the agent and its endpoints",
		"Use `endpoints` to see which routes are enabled and `resources` to find this document.").
		answers(jsonReply(200, "The agent description.", b.ref("Agent")).example(agentExample(o))).done())
	doc.AddOperation("/readyz", http.MethodGet, public("getReadiness", "Check that this server can take requests",
		"Readiness, for load balancers and orchestrators: 200 while the state "+
			"store answers within its timeout and the server is not shutting down, 503 otherwise. "+
			"(`GET /healthz` is liveness: it answers 200 whenever the process runs.)").
		answers(
			jsonReply(200, "The server is ready.", object("Readiness.",
				req("status", enumStr("Always `ready`.", "ready")),
			)).example(map[string]any{"status": "ready"}),
			b.failure(503, "Not ready: `code` is `store_unavailable` when the state store does not answer and "+
				"`server_shutdown` when the server is shutting down; the body also has `\"status\": \"unavailable\"`.").
				example(map[string]any{"status": "unavailable", "detail": "The state store does not answer", "code": "store_unavailable"}),
		).done())
}

// Endpoints are the /agent entries of the neutral API's routes (package
// neutral serves them), by name.
func Endpoints() map[string]string {
	return map[string]string{
		"responses":        "/responses",
		"responseStatus":   "/responses/{responseId}",
		"sessions":         "/sessions",
		"sessionMessages":  "/sessions/{sessionId}/messages",
		"sessionResponses": "/sessions/{sessionId}/responses",
		"responseEvents":   "/responses/{responseId}/events",
		"responseCancel":   "/responses/{responseId}/cancel",
		"responseSteer":    "/responses/{responseId}/steer",
		"sessionEvents":    "/sessions/{sessionId}/events",
		"approvals":        "/approvals/{approvalId}",
		"clientTools":      "/client-tools/{requestId}",
		"assets":           "/sessions/{sessionId}/assets",
		"asset":            "/sessions/{sessionId}/assets/{assetId}",
	}
}

func agentExample(o Options) map[string]any {
	endpoints := map[string]any{
		"openapi":     "/openapi.json",
		"openapiYaml": "/openapi.yaml",
		"docs":        "/docs",
	}
	for name, path := range Endpoints() {
		endpoints[name] = path
	}
	if o.Live {
		endpoints["live"] = "/live"
	}
	if o.AGUI {
		endpoints["agui"] = "/agui"
	}
	if o.MCP {
		endpoints["mcp"] = "/mcp"
	}
	return map[string]any{
		"id":          agentName(o.AgentName),
		"name":        agentName(o.AgentName),
		"description": "An example agent.",
		"card":        map[string]any{},
		"endpoints":   endpoints,
		"resources": []any{
			map[string]any{"name": "openapi.json", "uri": "/openapi.json", "mimeType": "application/json"},
			map[string]any{"name": "openapi.yaml", "uri": "/openapi.yaml", "mimeType": "application/yaml"},
		},
	}
}
