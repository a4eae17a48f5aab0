package apidoc

import (
	"context"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Options selects what the generated document says about this server.
type Options struct {
	// AgentName appears in the title as "Harnest: <AgentName>".
	AgentName string
	// Description, when not blank, opens the document description,
	// before the explanation of the /responses workflow.
	Description string
	// Live reports that the /live WebSocket endpoint is enabled.
	Live bool
	// AGUI reports that the POST /agui endpoint is enabled.
	AGUI bool
	// MCP reports that the /mcp endpoint (an MCP server) is enabled.
	MCP bool
	// OpenAICompat reports that /v1/models and /v1/chat/completions are
	// enabled.
	OpenAICompat bool
	// OpenResponses reports that /v1/responses (Open Responses) is
	// enabled: its operations are described under the tag "Open Responses".
	OpenResponses bool
	// UseChat reports that /api/chat (the AI SDK's useChat) is enabled:
	// its operations are described under the tag "useChat".
	UseChat bool
	// InputSchema and OutputSchema are a typed agent's contract
	// (spec.inputSchema, spec.outputSchema; contract.go) as JSON text
	// (strings: Options is a map key, cache.go); "": untyped.
	InputSchema  string
	OutputSchema string
}

const (
	openAPIVersion = "3.0.3"
	apiVersion     = "1.0.0"

	tagResponses = "Responses"
	tagSessions  = "Sessions"
	tagDiscovery = "Discovery"

	bearerAuth = "bearerAuth"

	mediaJSON = "application/json"
	mediaSSE  = "text/event-stream"

	schemaPrefix = "#/components/schemas/"
)

// Document builds the OpenAPI 3.0.3 description of the neutral HTTP API.
// The result has passed openapi3.T.Validate.
func Document(o Options) (*openapi3.T, error) {
	b := &builder{schemas: openapi3.Schemas{}}
	b.defineSchemas()

	doc := &openapi3.T{
		OpenAPI: openAPIVersion,
		Info: &openapi3.Info{
			Title:       "Harnest: " + agentName(o.AgentName),
			Description: description(o),
			Version:     apiVersion,
		},
		Tags: openapi3.Tags{
			{Name: tagResponses, Description: "Send messages to the agent and recover their results."},
			{Name: tagSessions, Description: "Create, inspect, update and delete conversations and read their transcripts."},
			{Name: tagDiscovery, Description: "Find out who the agent is and which endpoints this server offers."},
			{Name: tagRelay, Description: relayTagDescription, Extensions: map[string]any{"x-protocol": relayProtocol}},
			{Name: tagRelayOwner, Description: relayOwnerTagDescription, Extensions: map[string]any{"x-protocol": relayProtocol}},
		},
		// The empty requirement makes the bearer token optional: servers
		// without configured tokens accept anonymous calls.
		Security: openapi3.SecurityRequirements{
			{bearerAuth: []string{}},
			{},
		},
		Components: &openapi3.Components{
			Schemas: b.schemas,
			SecuritySchemes: openapi3.SecuritySchemes{
				bearerAuth: &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
					Type:        "http",
					Scheme:      "bearer",
					Description: "A token configured on the server, sent as `Authorization: Bearer <token>`. Not needed when the server has no tokens.",
				}},
				relaySession: &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
					Type:   "http",
					Scheme: "bearer",
					Description: "An outside agent's session token (relay-poll-v1), from `POST /api/outside-agents/v1/pairings/exchange`, " +
						"sent as `Authorization: Bearer <token>`.",
				}},
				relayCallback: &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
					Type:   "http",
					Scheme: "bearer",
					Description: "An outside agent's callback token for tools at home (`hrn_cb_...`), the `callback_token` of " +
						"`POST /api/outside-agents/v1/pairings/exchange`, sent as `Authorization: Bearer <callback_token>`.",
				}},
			},
		},
		Paths: openapi3.NewPaths(),
	}

	b.addDiscovery(doc, o)
	b.addSessions(doc)
	b.addCompaction(doc) // compact.go
	b.addResponses(doc)
	b.addAssets(doc)
	b.addRelay(doc)
	b.addSchedules(doc) // schedules.go
	b.addTriggers(doc)  // triggers.go
	b.addEvals(doc)     // evals.go
	b.addMemory(doc)    // memory.go
	b.addUsage(doc)     // usage.go
	if o.OpenResponses {
		doc.Tags = append(doc.Tags, &openapi3.Tag{Name: tagOpenResponses, Description: "The Open Responses API at /v1/responses: the same agent through the OpenAI SDKs' Responses clients."})
		b.addOpenResponses(doc)
	}
	if o.UseChat {
		doc.Tags = append(doc.Tags, &openapi3.Tag{Name: tagUseChat, Description: "The Vercel AI SDK's useChat endpoint at /api/chat: UI message streams, resume and stop."})
		b.addUseChat(doc)
	}

	if err := b.addContract(doc, o); err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("apidoc: generated document is invalid: %w", err)
	}
	return doc, nil
}

func agentName(name string) string {
	if name = strings.TrimSpace(name); name == "" {
		return "agent"
	}
	return name
}

const workflowText = "**Talking to the agent.** Send the user's message as `input` in a `POST /responses` call. " +
	"Leave out `sessionId` on the first call and the server starts a new session; keep the `sessionId` it returns " +
	"and send it with every follow-up so the agent continues the same conversation. " +
	"The answer is in `outputText`. Check `status` as well as the HTTP code: `requires_action` and `in_progress` " +
	"are successful replies whose work is not finished yet.\n\n" +
	"Add `\"stream\": true` to receive the reply as Server-Sent Events instead of one JSON document. " +
	"The stream opens with `response.created` and ends with `response.completed` or `error`.\n\n" +
	"Every reply carries a response `id`. If the connection drops or the reply is still `in_progress`, " +
	"poll `GET /responses/{id}?sessionId=...` with the same session to read the latest state; " +
	"once the response has finished it returns exactly the JSON the original call produced.\n\n" +
	"**Long runs** (harnest extensions). Add `\"background\": true` and the run no longer depends on the request: " +
	"a JSON call returns at once with the `in_progress` receipt, and a dropped stream does not cancel it. " +
	"Follow its events with `GET /responses/{id}/events?sessionId=...&after=N` from any replica, " +
	"and stop it with `POST /responses/{id}/cancel?sessionId=...`. Add `\"webhook\": {\"url\": ...}` and the final " +
	"receipt is POSTed to you when the run ends, signed with the key of `GET /webhook-key`.\n\n" +
	"**Waiting for the caller.** A `requires_action` reply names what the agent waits for in `requiredAction`: " +
	"answer a `human_approval` with `POST /approvals/{id}` and a `client_tool` with `POST /client-tools/{id}`; " +
	"each returns the response's next boundary.\n\n" +
	"**Media.** Upload images, audio, video and files with `POST /sessions/{sessionId}/assets`, then send " +
	"`input` as content parts that name them by `assetId` in the same session."

const liveText = "**WebSocket.** This server also accepts live conversations at `/live`: send a `connect` frame, " +
	"wait for `session.connected`, then send `response.create` frames. They share sessions and response IDs with this API."

const aguiText = "**AG-UI.** AG-UI clients can connect to `POST /agui`. That endpoint speaks the AG-UI event " +
	"protocol and is not described in this document."

const mcpText = "**MCP.** MCP clients can connect to `/mcp` (Streamable HTTP): its one tool, named after the agent, " +
	"runs a turn with `{message, sessionId?}` and returns the answer and the session. It speaks MCP and is not described in this document."

const openAIText = "**OpenAI-compatible.** OpenAI clients can use `GET /v1/models` and `POST /v1/chat/completions`; " +
	"the `Harnest-Session-Id` header continues a session. Those routes follow OpenAI's API and are not described in this document."

const authText = "**Authentication.** When the server has bearer tokens configured, send " +
	"`Authorization: Bearer <token>` on every call except `GET /agent`. Without tokens no credentials are needed. " +
	"Do not put credentials in `metadata`."

func description(o Options) string {
	var parts []string
	if d := strings.TrimSpace(o.Description); d != "" {
		parts = append(parts, d)
	}
	parts = append(parts, workflowText)
	// The paragraphs of the enabled endpoints, in this order.
	for _, p := range []struct {
		on   bool
		text string
	}{
		{o.Live, liveText},
		{o.AGUI, aguiText},
		{o.MCP, mcpText},
		{o.OpenAICompat, openAIText},
		{o.OpenResponses, openResponsesText},
		{o.UseChat, useChatText},
	} {
		if p.on {
			parts = append(parts, p.text)
		}
	}
	parts = append(parts, authText)
	return strings.Join(parts, "\n\n")
}

// builder holds the component schemas so operations can refer to them.
type builder struct {
	schemas openapi3.Schemas
}

func (b *builder) define(name string, s *openapi3.SchemaRef) {
	b.schemas[name] = s
}

// ref returns a $ref to a schema defined earlier. The resolved value is
// attached so the document validates without a loader.
func (b *builder) ref(name string) *openapi3.SchemaRef {
	s, ok := b.schemas[name]
	if !ok {
		panic("apidoc: schema " + name + " is used before it is defined")
	}
	return &openapi3.SchemaRef{Ref: schemaPrefix + name, Value: s.Value}
}
