package apidoc

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/harnest/harnest/internal/media"
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
	b.addResponses(doc)
	b.addAssets(doc)
	b.addRelay(doc)

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
	if o.Live {
		parts = append(parts, liveText)
	}
	if o.AGUI {
		parts = append(parts, aguiText)
	}
	if o.MCP {
		parts = append(parts, mcpText)
	}
	if o.OpenAICompat {
		parts = append(parts, openAIText)
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

// ---------------------------------------------------------------------------
// Component schemas

var responseStatuses = []string{"completed", "in_progress", "requires_action", "failed", "cancelled", "denied"}

// mediaPartTypes are the content-part types that name an asset.
var mediaPartTypes = []string{"image", "audio", "video", "file"}

// assetMediaTypes are the media types an asset may have, as internal/media
// accepts them.
var assetMediaTypes = []string{
	media.PNG, media.JPEG, media.GIF, media.WebP,
	media.MP3, media.WAV,
	media.MP4, media.WebM,
	media.PDF, media.Octet,
}

var outputItemTypes = []string{
	"message", "thinking", "agent_activity", "agent_metadata",
	"decision_result", "tool_call", "tool_result", "output", "artifact",
}

func (b *builder) defineSchemas() {
	defer b.defineRelaySchemas()
	b.define("Error", object("The body of every error reply.",
		req("detail", str("What went wrong, for example `Session not found`.")),
		opt("code", str("A machine-readable error code, when the server has one.")),
	))

	b.define("Session", object("A conversation and the state the agent keeps for it.",
		req("id", str("The session ID, chosen by the caller or generated by the server.")),
		req("userId", str("The owner of the session. Anonymous callers share one built-in user ID.")),
		req("state", freeObject("The agent's session state.")),
		req("applicationData", freeObject("Data the application keeps with the session outside the model state.")),
		req("createdAt", timestamp("When the session was created, if the store records it.")),
		req("updatedAt", timestamp("When the session last changed, if the store records it.")),
		req("metadata", freeObject("Framework-specific details, namespaced by framework.")),
	))

	b.define("SessionPage", object("One page of sessions, ordered by session ID.",
		req("sessions", arrayOf("The sessions on this page.", b.ref("Session"))),
		req("nextCursor", nullableStr("Pass as `cursor` to fetch the next page; null on the last page.")),
	))

	b.define("Message", object("One entry of a session transcript.",
		req("id", str("The message ID.")),
		req("role", str("Who produced the message, such as `user` or `assistant`.")),
		req("content", anyValue("A string, or structured content parts. Binary data is replaced by placeholders.")),
		req("createdAt", timestamp("When the message was recorded, if known.")),
		req("metadata", freeObject("Extra details about the message.")),
	))

	b.define("MessagePage", object("One page of a session transcript, oldest first.",
		req("sessionId", str("The session the transcript belongs to.")),
		req("userId", str("The owner of the session.")),
		req("messages", arrayOf("The messages on this page.", b.ref("Message"))),
		req("nextCursor", nullableStr("Pass as `cursor` to fetch the next page; null on the last page.")),
	))

	b.define("Usage", object("Token counts reported by the model provider.",
		opt("inputTokens", integer("Tokens sent to the model.")),
		opt("outputTokens", integer("Tokens produced by the model.")),
		opt("totalTokens", integer("All tokens; input plus output when the provider gives no total.")),
	))

	b.defineArtifactSchemas() // artifact.go
	b.define("OutputItem", openObject("One piece of activity from a response. Which other fields are present depends on `type`.",
		req("type", enumStr("The kind of item.", outputItemTypes...)),
		opt("role", str("`message`: the speaker, `assistant` by default.")),
		opt("content", anyValue("`message` and `thinking`: a list of text parts.")),
		opt("agent", str("The agent or graph node that produced the item.")),
		opt("activity", str("`agent_activity`: the lifecycle step, such as `started` or `completed`; `task`, `rejected` "+
			"or `auth_required` say how the answer is to be taken (the receipt is still `completed`, with the agent's text).")),
		opt("target", str("`agent_activity`: the agent handed off to, when relevant.")),
		opt("code", str("`agent_activity`: a code describing the step, when relevant.")),
		opt("framework", str("`agent_metadata`: the framework that ran the model call.")),
		opt("usage", b.ref("Usage")),
		opt("model", str("`agent_metadata`: the model, when reported.")),
		opt("provider", str("`agent_metadata`: the model provider, when reported.")),
		opt("finishReason", str("`agent_metadata`: why the model stopped, in the provider's words.")),
		opt("id", str("`tool_call`: the call ID.")),
		opt("callId", str("`tool_result`: the ID of the call this result answers.")),
		opt("name", str("`tool_call` and `tool_result`: the tool name; `artifact`: the artifact's name, when it has one.")),
		opt("arguments", freeObject("`tool_call`: the arguments passed to the tool.")),
		opt("output", anyValue("`tool_result`: what the tool returned.")),
		opt("value", anyValue("`output` and `decision_result`: the structured value.")),
		opt("artifactId", str(artifactItemText+": the artifact's ID.")),
		opt("description", str("`artifact`: what the artifact is, when given.")),
		opt("parts", arrayOf("`artifact`: its parts, in order.", b.ref("ArtifactPart"))),
		opt("metadata", freeObject("`artifact`: the artifact's own metadata, when given.")),
	))

	b.define("ResponseEnvelope", object("The result of one call to the agent. `status` tells whether the work has finished.",
		req("id", str("The response ID (`resp_` followed by 32 hex digits). Use it to poll the response.")),
		req("sessionId", str("The session the response belongs to. Send it with follow-up messages.")),
		req("status", enumStr("Where the response stands.", responseStatuses...)),
		req("outputText", str("The assistant's answer as plain text. Empty while unfinished.")),
		req("output", arrayOf("Everything the agent produced, in order.", b.ref("OutputItem"))),
		req("metadata", freeObject("The caller metadata sent with the request.")),
		opt("usage", b.ref("Usage")),
		opt("result", anyValue("The agent's structured result, when it produced one.")),
		opt("requiredAction", openObject("Present when `status` is `requires_action`: what the agent is waiting for.",
			req("type", enumStr("The kind of action.", "human_approval", "client_tool")),
			req("id", str("The approval ID (answer with `POST /approvals/{id}`) or client-tool request ID (answer with `POST /client-tools/{id}`).")),
			req("callId", str("The call the action belongs to: the response ID for approvals, the tool call ID for client tools.")),
			opt("action", str("`human_approval`: the action that needs approval.")),
			opt("message", str("`human_approval`: a message for the person approving.")),
			opt("name", str("`client_tool`: the tool the client should run.")),
			opt("arguments", freeObject("`client_tool`: the tool arguments; `human_approval`: the arguments of the action, when the agent gave them.")),
			req("expiresAt", describe(openapi3.NewDateTimeSchema(), "When the request expires; an approval nobody answers by then ends the response as `denied`.")),
		)),
		opt("pendingAction", openObject("Present while the response waits for durable external work.",
			req("type", enumStr("The kind of wait.", "external_continuation")),
			req("id", str("The wait ID.")),
			opt("capability", str("The capability being waited on.")),
		)),
		opt("error", object("Present when `status` is `failed` or `cancelled`: a stable code, never the agent's error text.",
			req("code", str("Why the response ended: `invocation_failed`, `timed_out`, `no_output`, `cancelled`, "+
				"`server_shutdown`, `lease_lost` or `replica_lost`.")),
		)),
		opt("approvalId", str("The last approval this response resumed from (or, when `denied`, the approval that was denied).")),
		opt("clientToolId", str("The last client-tool request this response resumed from.")),
		opt("requestId", str("The request ID used by the transport, when it has one.")),
	))

	b.define("ApprovalDenial", strictObject("The answer to a denied approval. The response ends as `denied`; its receipt names the approval in `approvalId`.",
		req("id", str("The approval ID.")),
		req("status", enumStr("Always `denied`.", "denied")),
	))

	b.define("TextInputPart", strictObject("A piece of the user's message as text. The text parts of an `input` are joined with newlines.",
		req("type", enumStr("Always `text`.", "text")),
		req("text", str("The text. It may be blank when another part carries non-blank text or media.")),
	))

	b.define("MediaInputPart", strictObject("An asset of the session, uploaded earlier with `POST /sessions/{sessionId}/assets`.",
		req("type", enumStr("How the agent should treat the asset.", mediaPartTypes...)),
		req("assetId", nonEmptyStr("The `assetId` the upload returned. The asset must belong to the request's session.")),
	))
	b.define("FileURLInputPart", strictObject("A file the agent is told the address of. The server never fetches it.",
		req("type", enumStr("Always `file`.", "file")),
		req("url", nonEmptyStr("An absolute http, https or data URL.")),
		opt("mediaType", str("What the file is, as the client says, such as `application/pdf`.")),
		opt("name", str("The file's name.")),
	))
	b.define("DataInputPart", strictObject("Structured data for the agent, as A2A's data parts carry it.",
		req("type", enumStr("Always `data`.", "data")),
		req("data", describe(&openapi3.Schema{}, "Any JSON value.")),
	))

	b.define("Asset", object("A stored asset: what the server learned from its content. Fields that are left out are unknown or do not apply.",
		req("assetId", str("The asset ID (`asset_` followed by 24 URL-safe characters).")),
		req("mediaType", enumStr("The media type, checked against the content's signature.", assetMediaTypes...)),
		req("sizeBytes", describe(openapi3.NewInt64Schema().WithMin(1), "The size of the content in bytes.")),
		opt("width", describe(openapi3.NewIntegerSchema().WithMin(1), "Images and video: the width in pixels.")),
		opt("height", describe(openapi3.NewIntegerSchema().WithMin(1), "Images and video: the height in pixels.")),
		opt("durationSeconds", describe(openapi3.NewFloat64Schema().WithMin(0), "Audio and video: the duration in seconds.")),
		opt("pageCount", describe(openapi3.NewIntegerSchema().WithMin(1), "PDF: the number of pages.")),
		opt("frameCount", describe(openapi3.NewIntegerSchema().WithMin(1), "Animated images: the number of frames.")),
		opt("channels", describe(openapi3.NewIntegerSchema().WithMin(1), "Audio: the number of channels.")),
		opt("sampleRateHz", describe(openapi3.NewIntegerSchema().WithMin(1), "Audio: the sample rate in hertz.")),
	))

	b.define("Resource", object("A machine-readable description of the API.",
		req("name", str("The resource name.")),
		req("uri", str("A URI relative to the server address.")),
		req("mimeType", str("The media type of the resource.")),
	))

	b.define("Agent", object("Who the agent is and which endpoints this server offers.",
		req("id", str("The agent ID.")),
		req("name", str("The agent name.")),
		req("description", str("What the agent does.")),
		req("card", freeObject("The agent card.")),
		req("endpoints", mapOf("Enabled endpoints by name, as relative paths.", str(""))),
		req("resources", arrayOf("Documents describing this API.", b.ref("Resource"))),
		opt("framework", str("The framework that runs the agent.")),
		opt("mode", str("How the framework is hosted.")),
	))
}

// ---------------------------------------------------------------------------
// Discovery

func (b *builder) addDiscovery(doc *openapi3.T, o Options) {
	doc.AddOperation("/agent", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagDiscovery},
		OperationID: "getAgent",
		Summary:     "Describe the agent and its endpoints",
		Description: "Public: needs no credentials. Use `endpoints` to see which routes are enabled and `resources` to find this document.",
		Security:    &openapi3.SecurityRequirements{},
		Responses: replies(
			jsonReply(200, "The agent description.", b.ref("Agent")).example(agentExample(o)),
		),
	})
	doc.AddOperation("/readyz", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagDiscovery},
		OperationID: "getReadiness",
		Summary:     "Check that this server can take requests",
		Description: "Public: needs no credentials. Readiness, for load balancers and orchestrators: 200 while the state " +
			"store answers within its timeout and the server is not shutting down, 503 otherwise. " +
			"(`GET /healthz` is liveness: it answers 200 whenever the process runs.)",
		Security: &openapi3.SecurityRequirements{},
		Responses: replies(
			jsonReply(200, "The server is ready.", object("Readiness.",
				req("status", enumStr("Always `ready`.", "ready")),
			)).example(map[string]any{"status": "ready"}),
			b.failure(503, "Not ready: `code` is `store_unavailable` when the state store does not answer and "+
				"`server_shutdown` when the server is shutting down; the body also has `\"status\": \"unavailable\"`.").
				example(map[string]any{"status": "unavailable", "detail": "The state store does not answer", "code": "store_unavailable"}),
		),
	})
}

func agentExample(o Options) map[string]any {
	endpoints := map[string]any{
		"openapi":         "/openapi.json",
		"openapiYaml":     "/openapi.yaml",
		"docs":            "/docs",
		"responses":       "/responses",
		"responseStatus":  "/responses/{responseId}",
		"sessions":        "/sessions",
		"sessionMessages": "/sessions/{sessionId}/messages",
		"responseEvents":  "/responses/{responseId}/events",
		"responseCancel":  "/responses/{responseId}/cancel",
		"approvals":       "/approvals/{approvalId}",
		"clientTools":     "/client-tools/{requestId}",
		"assets":          "/sessions/{sessionId}/assets",
		"asset":           "/sessions/{sessionId}/assets/{assetId}",
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

// ---------------------------------------------------------------------------
// Sessions

func (b *builder) addSessions(doc *openapi3.T) {
	doc.AddOperation("/sessions", http.MethodPost, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "createSession",
		Summary:     "Create a session",
		Description: "Creating a session first is optional: `POST /responses` without `sessionId` creates one. " +
			"Create one here to choose its ID or give it initial state.",
		RequestBody: jsonBody("Send `{}` to let the server choose the ID.", strictObject("A new session.",
			opt("id", nonEmptyStr("The session ID. When omitted, the server makes one: a version 7 UUID as 32 hex digits, so that IDs made later sort later.")),
			opt("state", freeObject("The initial session state. Defaults to `{}`.")),
		)),
		Responses: replies(
			jsonReply(201, "The new session.", b.ref("Session")),
			b.failure(400, "The body is not valid JSON, has unknown fields, an empty `id`, or a `state` that is not an object."),
			b.failure(409, "Session already exists"),
			b.tooLarge(),
			b.notJSON(),
		),
	})

	doc.AddOperation("/sessions", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "listSessions",
		Summary:     "List sessions",
		Description: "Lists the caller's sessions in session ID order, one page at a time.",
		Parameters:  openapi3.Parameters{limitParam(), cursorParam()},
		Responses: replies(
			jsonReply(200, "A page of sessions.", b.ref("SessionPage")),
			b.failure(400, "The cursor or limit is invalid, for example `Invalid session cursor`."),
		),
	})

	doc.AddOperation("/sessions/{sessionId}", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "getSession",
		Summary:     "Read a session",
		Parameters:  openapi3.Parameters{sessionPathParam()},
		Responses: replies(
			jsonReply(200, "The session.", b.ref("Session")),
			b.failure(404, "Session not found"),
		),
	})

	doc.AddOperation("/sessions/{sessionId}", http.MethodPatch, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "updateSession",
		Summary:     "Update session state",
		Description: "Merges `stateDelta` into the session state at the top level: each key replaces the whole previous value.",
		Parameters:  openapi3.Parameters{sessionPathParam()},
		RequestBody: jsonBody("The state change.", strictObject("A state update.",
			req("stateDelta", freeObject("The keys to set in the session state.")),
		)),
		Responses: replies(
			jsonReply(200, "The updated session.", b.ref("Session")),
			b.failure(400, "Expected stateDelta object"),
			b.failure(404, "Session not found"),
			b.tooLarge(),
			b.notJSON(),
		),
	})

	doc.AddOperation("/sessions/{sessionId}", http.MethodDelete, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "deleteSession",
		Summary:     "Delete a session",
		Parameters:  openapi3.Parameters{sessionPathParam()},
		Responses: replies(
			emptyReply(204, "The session was deleted."),
			b.failure(404, "Session not found"),
			b.failure(409, "A response is running in this session."),
		),
	})

	doc.AddOperation("/sessions/{sessionId}/messages", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "listSessionMessages",
		Summary:     "Read a session transcript",
		Description: "Returns the conversation oldest first, one page at a time. New messages may be appended between pages.",
		Parameters:  openapi3.Parameters{sessionPathParam(), limitParam(), cursorParam()},
		Responses: replies(
			jsonReply(200, "A page of the transcript.", b.ref("MessagePage")),
			b.failure(400, "The cursor or limit is invalid, for example `Invalid transcript cursor`."),
			b.failure(404, "Session not found"),
		),
	})
}

// ---------------------------------------------------------------------------
// Responses

const streamDescription = "Sent when the request has `\"stream\": true`. Each frame is `event: <name>`, " +
	"`id: <sequence>` and `data: <JSON>`, then a blank line. Every payload carries `type` (the event name), `sequence` (0, 1, 2, ...), " +
	"`responseId` and `sessionId`. A dropped stream cancels the response unless the request had `\"background\": true`; " +
	"resume it with `GET /responses/{responseId}/events` and `Last-Event-ID`.\n\n" +
	"Events:\n\n" +
	"- `response.created`: the response has started; always first.\n" +
	"- `response.text.delta`: the next piece of answer text in `delta`.\n" +
	"- `response.thinking.delta`: the next piece of reasoning text, when enabled.\n" +
	"- `response.agent_activity`: an agent or graph node changed state.\n" +
	"- `response.agent_metadata`: model details and token usage for one model call.\n" +
	"- `response.tool_call`: the agent called a tool.\n" +
	"- `response.tool_result`: a tool returned.\n" +
	"- `response.state_delta`: the session state changed.\n" +
	artifactEventText +
	"- `response.completed`: the final envelope (as in the JSON reply, with `responseId` instead of `id`); ends the stream.\n" +
	"- `error`: the run failed, with the reason in `error`; ends the stream.\n\n" +
	"When the agent needs approval or a client-side tool, `approval.requested` or `client_tool.requested` " +
	"is followed by `response.completed` with `status` `requires_action`."

const streamExample = `event: response.created
id: 0
data: {"type": "response.created", "sequence": 0, "responseId": "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718", "sessionId": "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d", "metadata": {}}

event: response.text.delta
id: 1
data: {"type": "response.text.delta", "sequence": 1, "responseId": "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718", "sessionId": "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d", "delta": "Hello! "}

event: response.text.delta
id: 2
data: {"type": "response.text.delta", "sequence": 2, "responseId": "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718", "sessionId": "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d", "delta": "How can I help?"}

event: response.completed
id: 3
data: {"type": "response.completed", "sequence": 3, "responseId": "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718", "sessionId": "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d", "status": "completed", "outputText": "Hello! How can I help?", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello! How can I help?"}]}], "metadata": {}}

`

func completedExample() map[string]any {
	return map[string]any{
		"id":         "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718",
		"sessionId":  "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d",
		"status":     "completed",
		"outputText": "Hello! How can I help?",
		"output": []any{
			map[string]any{
				"type": "message",
				"role": "assistant",
				"content": []any{
					map[string]any{"type": "output_text", "text": "Hello! How can I help?"},
				},
			},
		},
		"metadata": map[string]any{},
	}
}

// inputSchema is the `input` of POST /responses: a non-blank string, or a
// non-empty list of content parts.
func (b *builder) inputSchema() *openapi3.SchemaRef {
	text := openapi3.NewStringSchema().WithMinLength(1).WithPattern(`\S`)
	text.Description = "The user's message as plain text. It must not be blank."

	part := &openapi3.Schema{OneOf: openapi3.SchemaRefs{b.ref("TextInputPart"), b.ref("MediaInputPart"),
		b.ref("FileURLInputPart"), b.ref("DataInputPart")}}
	part.Description = "A text part, a media part (a session asset), a file by URL or a data part, told apart by `type` " +
		"(and, for `file`, by `assetId` or `url`)."
	parts := openapi3.NewArraySchema().WithMinItems(1).WithMaxItems(maxInputParts)
	parts.Items = inline(part)
	parts.Description = "The user's message as content parts, in order: `{\"type\": \"text\", \"text\": ...}` and " +
		"`{\"type\": \"image\"|\"audio\"|\"video\"|\"file\", \"assetId\": ...}`, `{\"type\": \"file\", \"url\": ...}` and " +
		"`{\"type\": \"data\", \"data\": <any JSON>}`. Text parts are joined with newlines. " +
		"At least one part must be non-blank text or media; media needs `sessionId`, since assets belong to a session."

	s := &openapi3.Schema{OneOf: openapi3.SchemaRefs{inline(text), inline(parts)}}
	s.Description = "The user's message: a non-blank string, or an array of content parts."
	return inline(s)
}

// maxInputParts bounds the content parts of one input.
const maxInputParts = 64

func requiresActionExample() map[string]any {
	return map[string]any{
		"id":         "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718",
		"sessionId":  "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d",
		"status":     "requires_action",
		"outputText": "",
		"output": []any{
			map[string]any{
				"type": "message",
				"role": "assistant",
				"content": []any{
					map[string]any{"type": "output_text", "text": "I drafted the reply."},
				},
			},
		},
		"metadata": map[string]any{},
		"requiredAction": map[string]any{
			"type":      "human_approval",
			"id":        "approval_9a8b7c6d5e4f40312a1b2c3d4e5f6071",
			"callId":    "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718",
			"action":    "send_email",
			"message":   "Send the reply to bob@example.com?",
			"expiresAt": "2025-01-01T12:15:00.000000+00:00",
		},
	}
}

func (b *builder) addResponses(doc *openapi3.T) {
	request := strictObject("A message for the agent.",
		req("input", b.inputSchema()),
		opt("sessionId", nonEmptyStr("An existing session to continue. Leave out to start a new session.")),
		opt("stream", boolean("Reply with Server-Sent Events instead of one JSON document.", false)),
		opt("background", boolean("Harnest extension: the run no longer depends on the request. "+
			"A JSON call returns at once with the `in_progress` receipt; poll `GET /responses/{responseId}` or follow "+
			"`GET /responses/{responseId}/events`. With `stream` the events still arrive, but a dropped connection "+
			"does not cancel the run. Stop it with `POST /responses/{responseId}/cancel`.", false)),
		opt("metadata", freeObject("Caller metadata, echoed in the reply. Not used for identity or authentication.")),
		opt("webhook", webhookSchema()), // webhook.go
	)
	body := jsonBody("The message and how to deliver the reply.", request)
	body.Value.Content.Get(mediaJSON).Examples = openapi3.Examples{
		"newConversation": example("Start a new conversation",
			map[string]any{"input": "Hello! What can you help me with?"}),
		"stream": example("Stream the reply as Server-Sent Events",
			map[string]any{"input": "Hello!", "stream": true}),
		"followUp": example("Continue a conversation (use the sessionId from an earlier reply)",
			map[string]any{"input": "Tell me more.", "sessionId": "REPLACE_WITH_RETURNED_SESSION_ID"}),
	}

	ok := jsonReply(200, "The agent's reply: a JSON envelope by default, or an event stream when `stream` is true. "+
		"With `background` the JSON envelope is the receipt as it stands, normally `in_progress`.",
		b.ref("ResponseEnvelope")).examples(openapi3.Examples{
		"completed":      example("The agent answered", completedExample()),
		"requiresAction": example("The agent waits for a human approval (answer with POST /approvals/{id})", requiresActionExample()),
	}).headers(idHeaders())
	sse := openapi3.NewStringSchema()
	sse.Description = streamDescription
	ok.value.Content[mediaSSE] = &openapi3.MediaType{
		Schema:  inline(sse),
		Example: streamExample,
	}

	doc.AddOperation("/responses", http.MethodPost, &openapi3.Operation{
		Tags:        []string{tagResponses},
		OperationID: "createAgentResponse",
		Summary:     "Send a message to the agent",
		Description: "Runs the agent on `input` and returns its reply. Without `sessionId` a new session is created. " +
			"A session runs one response at a time. `input` is a string or a list of content parts that may name " +
			"the session's assets. With `background` (a harnest extension) the run goes on without the request, and a " +
			"`webhook` then receives its final receipt (the `completionWebhook` callback).",
		RequestBody: body,
		Callbacks:   b.webhookCallbacks(),
		Responses: replies(
			ok,
			b.failure(400, "The body does not match the request schema (`Invalid response request`), or its content is invalid, "+
				"for example a media part naming an asset the session does not have, or a `webhook` that cannot be delivered "+
				"or comes without `background` (`invalid_request`)."),
			b.failure(404, "Session not found: `sessionId` does not name one of the caller's sessions."),
			b.failure(408, "The request body did not arrive within `server.http.bodyTimeoutSeconds` (`request_timeout`)."),
			b.failure(409, "The session is busy with another response."),
			b.tooLarge(),
			b.notJSON(),
			b.failure(429, "Too many responses: the caller's share of running and waiting turns "+
				"(`server.limits.maxTurnsPerUser`) or the server's queue (`server.http.maxQueuedRequests`) is full "+
				"(`too_many_requests`); retry after `Retry-After` seconds.").
				headers(openapi3.Headers{"Retry-After": header("Seconds to wait before retrying.", openapi3.NewIntegerSchema().NewRef())}),
			b.failure(502, "Agent completed without customer-facing output"),
			b.failure(503, "The server cannot accept more responses right now."),
			b.failure(504, "Response timed out"),
		),
	})

	doc.AddOperation("/responses/{responseId}", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagResponses},
		OperationID: "getAgentResponse",
		Summary:     "Read or recover a response",
		Description: "Returns the latest state of a response. While it runs the status is `in_progress`; " +
			"once finished this is exactly the JSON the original call returned.",
		Parameters: openapi3.Parameters{
			responsePathParam(),
			responseSessionParam(),
		},
		Responses: replies(
			jsonReply(200, "The response envelope.", b.ref("ResponseEnvelope")),
			b.failure(400, "sessionId must be non-empty"),
			b.failure(404, "Response not found"),
		),
	})

	b.addResponseControl(doc)
	b.addWaits(doc)
	b.addWebhookKey(doc) // webhook.go
}

func responsePathParam() *openapi3.ParameterRef {
	return pathParam("responseId", "The response `id` from an earlier reply.")
}

func responseSessionParam() *openapi3.ParameterRef {
	return queryParam("sessionId", "The session the response belongs to.", true, nonEmptyStr(""))
}

// idHeaders are the headers that name the response and its session on
// every POST /responses reply, so that a caller whose call failed can still
// read the receipt.
func idHeaders() openapi3.Headers {
	return openapi3.Headers{
		"Harnest-Response-Id": header("The response ID, sent before the body so a dropped call can still be recovered.", str("")),
		"Harnest-Session-Id":  header("The session ID of the response.", str("")),
	}
}

// ---------------------------------------------------------------------------
// Schema helpers. Each returns an inline schema reference.

type field struct {
	name     string
	schema   *openapi3.SchemaRef
	required bool
}

func req(name string, s *openapi3.SchemaRef) field {
	return field{name: name, schema: s, required: true}
}
func opt(name string, s *openapi3.SchemaRef) field { return field{name: name, schema: s} }

func inline(s *openapi3.Schema) *openapi3.SchemaRef { return &openapi3.SchemaRef{Value: s} }

func describe(s *openapi3.Schema, desc string) *openapi3.SchemaRef {
	s.Description = desc
	return inline(s)
}

func str(desc string) *openapi3.SchemaRef { return describe(openapi3.NewStringSchema(), desc) }

func nonEmptyStr(desc string) *openapi3.SchemaRef {
	return describe(openapi3.NewStringSchema().WithMinLength(1), desc)
}

func nullableStr(desc string) *openapi3.SchemaRef {
	return describe(openapi3.NewStringSchema().WithNullable(), desc)
}

func timestamp(desc string) *openapi3.SchemaRef {
	return describe(openapi3.NewDateTimeSchema().WithNullable(), desc)
}

func enumStr(desc string, values ...string) *openapi3.SchemaRef {
	enum := make([]any, len(values))
	for i, v := range values {
		enum[i] = v
	}
	return describe(openapi3.NewStringSchema().WithEnum(enum...), desc)
}

func integer(desc string) *openapi3.SchemaRef { return describe(openapi3.NewIntegerSchema(), desc) }

func boolean(desc string, def bool) *openapi3.SchemaRef {
	return describe(openapi3.NewBoolSchema().WithDefault(def), desc)
}

// anyValue accepts any JSON value.
func anyValue(desc string) *openapi3.SchemaRef { return describe(&openapi3.Schema{}, desc) }

// freeObject is an object with arbitrary keys.
func freeObject(desc string) *openapi3.SchemaRef { return describe(openapi3.NewObjectSchema(), desc) }

func arrayOf(desc string, items *openapi3.SchemaRef) *openapi3.SchemaRef {
	s := openapi3.NewArraySchema()
	s.Items = items
	return describe(s, desc)
}

func mapOf(desc string, values *openapi3.SchemaRef) *openapi3.SchemaRef {
	s := openapi3.NewObjectSchema()
	s.AdditionalProperties = openapi3.AdditionalProperties{Schema: values}
	return describe(s, desc)
}

// object lists known properties and leaves additionalProperties unset.
func object(desc string, fields ...field) *openapi3.SchemaRef {
	s := openapi3.NewObjectSchema()
	for _, f := range fields {
		s.Properties[f.name] = f.schema
		if f.required {
			s.Required = append(s.Required, f.name)
		}
	}
	return describe(s, desc)
}

// openObject is an object that explicitly allows properties beyond those listed.
func openObject(desc string, fields ...field) *openapi3.SchemaRef {
	s := object(desc, fields...)
	s.Value.WithAnyAdditionalProperties()
	return s
}

// strictObject is an object that rejects properties beyond those listed.
func strictObject(desc string, fields ...field) *openapi3.SchemaRef {
	s := object(desc, fields...)
	s.Value.WithoutAdditionalProperties()
	return s
}

// ---------------------------------------------------------------------------
// Operation helpers

func pathParam(name, desc string) *openapi3.ParameterRef {
	p := openapi3.NewPathParameter(name).WithDescription(desc)
	p.Schema = nonEmptyStr("")
	return &openapi3.ParameterRef{Value: p}
}

func queryParam(name, desc string, required bool, s *openapi3.SchemaRef) *openapi3.ParameterRef {
	p := openapi3.NewQueryParameter(name).WithDescription(desc).WithRequired(required)
	p.Schema = s
	return &openapi3.ParameterRef{Value: p}
}

func sessionPathParam() *openapi3.ParameterRef {
	return pathParam("sessionId", "The session ID.")
}

func limitParam() *openapi3.ParameterRef {
	s := openapi3.NewIntegerSchema().WithMin(1).WithMax(100).WithDefault(100)
	return queryParam("limit", "The largest number of items to return (1 to 100).", false, inline(s))
}

func cursorParam() *openapi3.ParameterRef {
	return queryParam("cursor", "The `nextCursor` of the previous page, passed back unchanged.", false, str(""))
}

func jsonBody(desc string, s *openapi3.SchemaRef) *openapi3.RequestBodyRef {
	return &openapi3.RequestBodyRef{Value: &openapi3.RequestBody{
		Description: desc,
		Required:    true,
		Content:     openapi3.Content{mediaJSON: &openapi3.MediaType{Schema: s}},
	}}
}

func example(summary string, value any) *openapi3.ExampleRef {
	return &openapi3.ExampleRef{Value: &openapi3.Example{Summary: summary, Value: value}}
}

// reply is one entry of an operation's responses.
type reply struct {
	status int
	value  *openapi3.Response
}

func jsonReply(status int, desc string, s *openapi3.SchemaRef) reply {
	return reply{status: status, value: &openapi3.Response{
		Description: &desc,
		Content:     openapi3.Content{mediaJSON: &openapi3.MediaType{Schema: s}},
	}}
}

func emptyReply(status int, desc string) reply {
	return reply{status: status, value: &openapi3.Response{Description: &desc}}
}

// example sets the JSON example of a reply.
func (r reply) example(v any) reply {
	r.value.Content.Get(mediaJSON).Example = v
	return r
}

// examples sets named JSON examples of a reply.
func (r reply) examples(ex openapi3.Examples) reply {
	r.value.Content.Get(mediaJSON).Examples = ex
	return r
}

// headers sets the headers of a reply.
func (r reply) headers(h openapi3.Headers) reply {
	r.value.Headers = h
	return r
}

func header(desc string, s *openapi3.SchemaRef) *openapi3.HeaderRef {
	return &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{Description: desc, Schema: s}}}
}

func headerParam(name, desc string, s *openapi3.SchemaRef) *openapi3.ParameterRef {
	p := openapi3.NewHeaderParameter(name).WithDescription(desc)
	p.Schema = s
	return &openapi3.ParameterRef{Value: p}
}

// failure is an error reply whose body is the Error schema.
func (b *builder) failure(status int, desc string) reply {
	return jsonReply(status, desc, b.ref("Error"))
}

func (b *builder) tooLarge() reply {
	return b.failure(413, "The request body is larger than the server allows (1 MiB by default).")
}

func (b *builder) notJSON() reply {
	return b.failure(415, "Content-Type must be application/json")
}

func replies(rs ...reply) *openapi3.Responses {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].status < rs[j].status })
	out := openapi3.NewResponsesWithCapacity(len(rs))
	for _, r := range rs {
		out.Set(strconv.Itoa(r.status), &openapi3.ResponseRef{Value: r.value})
	}
	return out
}
