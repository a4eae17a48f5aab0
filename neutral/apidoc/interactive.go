package apidoc

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Following, cancelling and answering responses

const eventsDescription = "Harnest extension: replays the response's events after sequence `after`, then follows it " +
	"live until it ends (`completed`, `failed`, `cancelled` or `denied`; a `requires_action` boundary is followed " +
	"through). It works from any replica, whichever one runs the response, and leaving never cancels the response.\n\n" +
	"The frames are those of a streamed `POST /responses` (`event: <name>`, `id: <sequence>`, `data: <JSON>`), " +
	"including `approval.requested` and `client_tool.requested`. A finished response replays at once and the " +
	"stream ends; a stream with nothing after `after` ends empty."

// eventsExample replays the end of the stream of POST /responses.
var eventsExample = strings.Join(streamExampleFrames[2:], "")

func afterSchema(desc string) *openapi3.SchemaRef {
	return describe(openapi3.NewIntegerSchema().WithMin(-1).WithDefault(-1), desc)
}

// resumeParams are `after` and `Last-Event-ID` of a stream a client
// resumes: afterDesc says what `after` names, lastEventIDEnd ends the
// sentence on Last-Event-ID, and cursor is the schema of both.
func resumeParams(afterDesc, lastEventIDEnd string, cursor func() *openapi3.SchemaRef) []*openapi3.ParameterRef {
	return []*openapi3.ParameterRef{
		queryParam("after", afterDesc+" With `Last-Event-ID` too (a reconnecting EventSource repeats its URL), "+
			"the later of the two is used.", false, cursor()),
		headerParam("Last-Event-ID", "The `id` of the last frame received, as EventSource clients send it on reconnect"+
			lastEventIDEnd, cursor()),
	}
}

// responseOp is an operation on one response, named by its ID and session:
// without the session it answers 400 (an operation whose 400 has more
// reasons replaces it), and 404 for a response not found.
func (b *builder) responseOp(id, summary, desc string) *operation {
	return b.op(tagResponses, id, summary, desc).
		params(responsePathParam(), responseSessionParam()).
		answers(b.failure(400, "sessionId must be non-empty"), b.failure(404, "Response not found"))
}

func (b *builder) addResponseControl(doc *openapi3.T) {
	doc.AddOperation("/responses/{responseId}/events", http.MethodGet, b.responseOp("followAgentResponseEvents",
		"Replay and follow a response's events", eventsDescription).
		params(resumeParams("Send the events whose sequence is greater than this; `-1` (the default) sends them all.",
			"; resumes after the later of it and `after`, so a reconnect is never sent what it has.",
			func() *openapi3.SchemaRef { return afterSchema("An event sequence, from -1.") })...).
		answers(
			sseReply("The events after `after`, then the live ones until the response ends.",
				"Server-Sent Events, as in the stream of `POST /responses`.", eventsExample),
			b.failure(400, "`sessionId` is missing, `after` (or `Last-Event-ID`) is not an integer from -1, "+
				"or the events after it are no longer held (`events_not_held`: read the receipt instead)."),
		).done())

	doc.AddOperation("/responses/{responseId}/cancel", http.MethodPost, b.responseOp("cancelAgentResponse",
		"Cancel a response",
		"Stops a running response and returns its final receipt (`cancelled`, with `error.code` `cancelled`). "+
			"Idempotent: cancelling a finished response returns its receipt unchanged. No body is needed. "+
			"Harnest extension: it works from any replica, whichever one runs the response.").
		answers(
			jsonReply(200, "The final receipt.", b.ref("ResponseEnvelope")),
		).done())
}

func (b *builder) addWaits(doc *openapi3.T) {
	decisionBody := jsonBody("The answer.", b.ref("ApprovalAnswer"))
	decisionBody.Value.Content.Get(mediaJSON).Examples = approvalAnswerExamples() // approvals.go

	approved := completedExample()
	approved["approvalId"] = "approval_9a8b7c6d5e4f40312a1b2c3d4e5f6071"
	answer := &openapi3.Schema{OneOf: openapi3.SchemaRefs{b.ref("ResponseEnvelope"), b.ref("ApprovalDenial"), b.ref("RelayToolCall")}}
	answer.Description = "The next boundary of the response after an approval, or the denial; for a tool call " +
		"approval, the call after the decision."
	decided := jsonReply(200, "Approve: the response's next boundary under the same response ID — `completed` "+
		"(naming the approval in `approvalId`) or the next `requires_action`. Deny: `{\"id\": <approvalId>, \"status\": \"denied\"}`. "+
		"A tool call approval (`tool_approval_...`): the call as `POST /owner/outside-agents/tool-approvals/{approvalId}` answers it.",
		inline(answer)).examples(openapi3.Examples{
		"approved": example("Approved: the response completed", approved),
		"denied": example("Denied", map[string]any{
			"id": "approval_9a8b7c6d5e4f40312a1b2c3d4e5f6071", "status": "denied",
		}),
	})

	doc.AddOperation("/approvals/{approvalId}", http.MethodPost, b.op(tagResponses, "decideApproval",
		"Answer an approval: approve, deny, edit or respond",
		"Answers a `human_approval` named in `requiredAction`. The call waits for the response's next "+
			"boundary. Each approval is decided once; one nobody answers before `expiresAt` expires and ends the response "+
			"as `denied`. Harnest extension: any replica takes the answer, whichever one runs the response. "+
			"It also answers the owner's tool call approvals of outside agents (tools at home: IDs `tool_approval_...` "+
			"from the `tool_call` entries of `GET /owner/outside-agents/feed`), once, without waiting.").
		params(pathParam("approvalId", "The `requiredAction.id` of a `human_approval`, or the "+
			"`approval_id` of an outside agent's tool call.")).
		takesJSON(decisionBody).
		answers(b.waitFailures("after the approval")...).
		answers(
			decided,
			b.failure(400, "The body is not an answer (`invalid_decision`), the approval does not take that decision "+
				"(`answer_not_offered`), or edited arguments break the action's schema (`invalid_arguments`, with `violations`); "+
				"nothing changes."),
			b.failure(404, "Approval not found (or owned by another user); for a tool call approval, also when the caller "+
				"is not the owner or tools at home are off (`approval_not_found`)."),
			b.failure(409, "The approval is already decided or expired, or the response waiting for it is no longer running "+
				"(a tool call approval already decided: `already_resolved`)."),
		).done())

	output := anyValue("What the tool returned: any JSON value, `null` included.")
	output.Value.Nullable = true
	outputBody := jsonBody("The tool's output.", strictObject("Exactly one member, `output`.", req("output", output)))
	outputBody.Value.Content.Get(mediaJSON).Example = map[string]any{"output": map[string]any{"city": "Oslo"}}

	doc.AddOperation("/client-tools/{requestId}", http.MethodPost, b.op(tagResponses, "submitClientToolOutput",
		"Return a client tool's output",
		"Answers a `client_tool` named in `requiredAction`: the client ran the tool `name` with `arguments` "+
			"and sends what it returned. The call waits for the response's next boundary. Each request is answered once. "+
			"Harnest extension: any replica takes the answer, whichever one runs the response.").
		params(pathParam("requestId", "The `requiredAction.id` of a `client_tool`.")).
		takesJSON(outputBody).
		answers(b.waitFailures("after the tool output")...).
		answers(
			jsonReply(200, "The response's next boundary under the same response ID: `completed` (naming the request in "+
				"`clientToolId`) or the next `requires_action`.", b.ref("ResponseEnvelope")),
			b.failure(400, "The body is not exactly `{\"output\": <any JSON>}`."),
			b.failure(404, "Client tool request not found (or owned by another user)."),
			b.failure(409, "The request is already answered or expired, or the response waiting for it is no longer running."),
		).done())
}

// waitFailures are the error replies of an answered wait whose next boundary
// is a failure; the receipt is then readable with GET /responses/{responseId}.
// after says what the agent failed after.
func (b *builder) waitFailures(after string) []reply {
	const recorded = " The answer was recorded; read the receipt with `GET /responses/{responseId}`."
	return []reply{
		b.failure(500, "The agent failed "+after+"."+recorded),
		b.failure(502, "The agent completed without customer-facing output."+recorded),
		b.failure(504, "The response did not reach its next boundary in time."+recorded),
	}
}
