package apidoc

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The response operations, and their examples.

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
	"- `response.retracted`: the response's replica was lost and another replica runs it again; `retracted` " +
	"(`fromSequence`, `toSequence`, `text`, `attempt`) names the events and text of the lost attempt that no longer count. " +
	"A `response.agent_activity` with `activity` `attempt` follows, then the new attempt's events.\n" +
	artifactEventText +
	steeredEventText +
	approvalResolvedEventText +
	"- `response.completed`: the final envelope (as in the JSON reply, with `responseId` instead of `id`); ends the stream.\n" +
	"- `error`: the run failed, with the reason in `error`; ends the stream.\n\n" +
	"When the agent needs approval or a client-side tool, `approval.requested` or `client_tool.requested` " +
	"is followed by `response.completed` with `status` `requires_action`."

// sseFrame is one frame of an example event stream.
func sseFrame(event, id, data string) string {
	return "event: " + event + "\nid: " + id + "\ndata: " + data + "\n\n"
}

// createdExampleData is the data of an example response.created event.
const createdExampleData = `{"type": "response.created", "sequence": 0, "responseId": "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718", "sessionId": "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d", "metadata": {}}`

// streamExampleFrames are the frames of an example stream of POST
// /responses.
var streamExampleFrames = []string{
	sseFrame("response.created", "0", createdExampleData),
	sseFrame("response.text.delta", "1", `{"type": "response.text.delta", "sequence": 1, "responseId": "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718", "sessionId": "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d", "delta": "Hello! "}`),
	sseFrame("response.text.delta", "2", `{"type": "response.text.delta", "sequence": 2, "responseId": "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718", "sessionId": "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d", "delta": "How can I help?"}`),
	sseFrame("response.completed", "3", `{"type": "response.completed", "sequence": 3, "responseId": "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718", "sessionId": "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d", "status": "completed", "outputText": "Hello! How can I help?", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello! How can I help?"}]}], "metadata": {}}`),
}

var streamExample = strings.Join(streamExampleFrames, "")

// envelopeExample is an example receipt with this status and outputText,
// whose output is one assistant message saying said.
func envelopeExample(status, outputText, said string) map[string]any {
	return map[string]any{
		"id":         "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718",
		"sessionId":  "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d",
		"status":     status,
		"outputText": outputText,
		"output": []any{
			map[string]any{
				"type": "message",
				"role": "assistant",
				"content": []any{
					map[string]any{"type": "output_text", "text": said},
				},
			},
		},
		"metadata": map[string]any{},
	}
}

func completedExample() map[string]any {
	return envelopeExample("completed", "Hello! How can I help?", "Hello! How can I help?")
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
	e := envelopeExample("requires_action", "", "I drafted the reply.")
	e["requiredAction"] = map[string]any{
		"type":      "human_approval",
		"id":        "approval_9a8b7c6d5e4f40312a1b2c3d4e5f6071",
		"callId":    "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718",
		"action":    "send_email",
		"message":   "Send the reply to bob@example.com?",
		"expiresAt": "2025-01-01T12:15:00.000000+00:00",
	}
	return e
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
		opt("onBusy", enumStr("Harnest extension: what to do when the session is busy (a response runs or waits for an approval "+
			"or a client tool). `reject` answers 409 `session_busy`; `enqueue` accepts the message at once with a `queued` "+
			"receipt and runs it when the responses before it end, in the order they were accepted, on any replica; "+
			"`interrupt` queues it first and cancels the running response (receipt `cancelled`, code `interrupted`), whose "+
			"partial answer stays in the transcript with `metadata.interrupted: true`; `rollback` does the same but keeps "+
			"nothing of the cancelled response in the transcript (code `rolled_back`). Leave out for the agent's default "+
			"(`spec.onBusy`, `reject` unless configured). A queued response is cancelled with `POST /responses/{responseId}/cancel` "+
			"and then never runs.", "reject", "enqueue", "interrupt", "rollback")),
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
		"With `background` the JSON envelope is the receipt as it stands, normally `in_progress` (`queued` when the message "+
		"waits for its turn on a busy session: `onBusy`).",
		b.ref("ResponseEnvelope")).examples(openapi3.Examples{
		"completed":      example("The agent answered", completedExample()),
		"requiresAction": example("The agent waits for a human approval (answer with POST /approvals/{id})", requiresActionExample()),
	}).headers(idHeaders())
	sse := openapi3.NewStringSchema()
	sse.Description = streamDescription
	ok.value.Content[mediaSSE] = sseMedia(streamDescription, streamExample)

	doc.AddOperation("/responses", http.MethodPost, b.op(tagResponses, "createAgentResponse", "Send a message to the agent",
		"Runs the agent on `input` and returns its reply. Without `sessionId` a new session is created. "+
			"A session runs one response at a time. `input` is a string or a list of content parts that may name "+
			"the session's assets. With `background` (a harnest extension) the run goes on without the request, and a "+
			"`webhook` then receives its final receipt (the `completionWebhook` callback).").
		takesJSON(body).
		callbacks(b.webhookCallbacks()).
		answers(
			ok,
			b.failure(400, "The body does not match the request schema (`Invalid response request`), or its content is invalid, "+
				"for example a media part naming an asset the session does not have, or a `webhook` that cannot be delivered "+
				"or comes without `background` (`invalid_request`)."),
			b.failure(404, "Session not found: `sessionId` does not name one of the caller's sessions."),
			b.failure(408, "The request body did not arrive within `server.http.bodyTimeoutSeconds` (`request_timeout`)."),
			b.failure(409, "The session is busy with another response (`session_busy`; see `onBusy`)."),
			b.failure(429, "Too many responses: the caller's share of running and waiting turns "+
				"(`server.limits.maxTurnsPerUser`) or the server's queue (`server.http.maxQueuedRequests`) is full "+
				"(`too_many_requests`), or the session's queue holds its bound of 20 responses (`queue_full`, `onBusy` "+
				"`enqueue`, `interrupt` or `rollback`); retry after `Retry-After` seconds.").
				headers(openapi3.Headers{"Retry-After": header("Seconds to wait before retrying.", openapi3.NewIntegerSchema().NewRef())}),
			b.failure(502, "Agent completed without customer-facing output"),
			b.failure(503, "The server cannot accept more responses right now."),
			b.failure(504, "Response timed out"),
		).done())

	doc.AddOperation("/responses/{responseId}", http.MethodGet, b.responseOp("getAgentResponse",
		"Read or recover a response",
		"Returns the latest state of a response. While it runs the status is `in_progress`; "+
			"once finished this is exactly the JSON the original call returned.").
		answers(
			jsonReply(200, "The response envelope.", b.ref("ResponseEnvelope")),
		).done())

	b.addResponseControl(doc)
	b.addSteer(doc)         // steer.go
	b.addSessionEvents(doc) // steer.go
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
