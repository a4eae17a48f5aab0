package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Steering a running response, and a session's own event stream

const steeredEventText = "- `response.steered`: the turn took a message handed to it with " +
	"`POST /responses/{responseId}/steer` (or the live frame `response.steer`); `steer` (`id`, `input`, `content`) is " +
	"the message, which the transcript keeps at this point of the answer.\n"

const sessionEventsDescription = "Harnest extension: follows every response of the session, one after the other in " +
	"the order they began, each from its first event to its last, live, from any replica. A page that was reloaded, or " +
	"a second tab, finds the running response this way without knowing its ID, then follows the next ones.\n\n" +
	"The frames are those of `GET /responses/{responseId}/events` (each payload names its `responseId`), but each " +
	"frame's `id` is a cursor `<response>.<sequence>`: the response's number in the session (from 1) and the event's " +
	"sequence in it. Resume after one with `after` or `Last-Event-ID`: no frame is repeated or skipped, across " +
	"responses. Without either the stream starts at the first event of the response that runs now (or waits for the " +
	"next one to begin). Leaving never cancels a response."

// sessionEventsExample opens a session stream: its frame ids are cursors.
var sessionEventsExample = sseFrame("response.created", "3.0", createdExampleData) +
	sseFrame("response.text.delta", "3.1", `{"type": "response.text.delta", "sequence": 1, "responseId": "resp_4f1c2a9b8e7d4c3fa1b2c3d4e5f60718", "sessionId": "8d3e5c1a2b4f4e6a9c0d1e2f3a4b5c6d", "delta": "Hello!"}`)

func sessionCursorSchema() *openapi3.SchemaRef {
	return describe(openapi3.NewStringSchema().WithPattern(`^[1-9][0-9]*\.(-1|[0-9]+)$`),
		"A session stream cursor `<response>.<sequence>`, as the stream's frame ids are, such as `3.12`.")
}

func (b *builder) addSteer(doc *openapi3.T) {
	body := jsonBody("The message for the running turn.", strictObject("Exactly one member, `input`.",
		req("input", b.inputSchema())))
	body.Value.Content.Get(mediaJSON).Example = map[string]any{"input": "Keep it under three sentences."}
	accepted := strictObject("A steer accepted for the running turn.",
		req("id", str("The steer's ID; `response.steered` names it when the turn takes the message.")),
		req("object", enumStr("", "response.steer")),
		req("responseId", str("The response steered.")),
		req("sessionId", str("Its session.")),
		req("status", enumStr("Accepted: the turn takes it at its next step.", "accepted")),
	)
	doc.AddOperation("/responses/{responseId}/steer", http.MethodPost, b.responseOp("steerAgentResponse",
		"Hand a message to a running response",
		"Harnest extension: hands a message to the running turn, from any replica, without a new "+
			"response. The turn takes it at its next step (the model backend before its next model call; a worker gets a "+
			"`steer` line), its stream then says `response.steered`, and the transcript keeps the message where it was "+
			"taken. A message the turn ends before taking is dropped (no `response.steered` names it).").
		takesJSON(body).
		answers(
			jsonReply(202, "Accepted: the turn takes it at its next step.", accepted),
			b.failure(400, "`sessionId` is missing, or the body is not `{\"input\": ...}` with a non-blank input."),
			b.failure(409, "Refused, nothing kept: `steer_unsupported` (the agent's backend cannot take a message during a "+
				"turn), `response_final` (the response is over), `response_queued` (it waits for its turn), or "+
				"`response_waiting` (it waits for an approval or a client tool)."),
		).done())
}

func (b *builder) addSessionEvents(doc *openapi3.T) {
	doc.AddOperation("/sessions/{sessionId}/events", http.MethodGet, b.op(tagSessions, "followSessionEvents",
		"Follow a session's responses", sessionEventsDescription).
		params(sessionPathParam()).
		params(resumeParams("Send the frames after this cursor.", ".", sessionCursorSchema)...).
		answers(
			sseReply("The session's events, live, until the client leaves.",
				"Server-Sent Events, as in the stream of `GET /responses/{responseId}/events`, with cursors as ids.",
				sessionEventsExample),
			b.failure(400, "`after` (or `Last-Event-ID`) is not a cursor `<response>.<sequence>` (`invalid_after`)."),
			b.sessionNotFound(),
		).done())
}
