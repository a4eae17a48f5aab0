package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Open Responses at /v1/responses (server.openResponses), as openaiapi
// serves it: the specification's create request, response object, event
// stream and errors, described as far as this server uses them.

const tagOpenResponses = "Open Responses"

const openResponsesText = "**Open Responses.** `POST /v1/responses` speaks the Open Responses specification " +
	"(the OpenAI Responses API): official OpenAI SDKs work with `baseURL` set to this server's `/v1`. `model` names the " +
	"agent; function `tools` are offered to the agent as client tools (its calls end the response with `function_call` " +
	"items, several when it calls several at once unless `parallel_tool_calls` is false; send every call's " +
	"`function_call_output` in the next request, in any order, with `previous_response_id` to go on); an approval ends it with an " +
	"`mcp_approval_request` item, answered with `mcp_approval_response`. `previous_response_id` and `conversation` " +
	"(a session ID) continue a session. Streams use the specification's events and `sequence_number`s and resume " +
	"with `GET /v1/responses/{id}?stream=true&starting_after=N` on any replica. `store: false` runs the turn in a " +
	"session of its own, deleted when the turn ends: the response is never found afterwards (404)."

const openResponsesEvents = "Server-Sent Events of the Open Responses specification, each `event: <type>` with " +
	"`data: {\"type\", \"sequence_number\", ...}`, numbered from 0: `response.created`, `response.in_progress`, per item " +
	"`response.output_item.added`, `response.content_part.added`, `response.output_text.delta` (or " +
	"`response.reasoning_text.delta` for the agent's thinking when the output policy shows it, or " +
	"`response.function_call_arguments.delta`/`.done` for a client tool call), their `.done` events and " +
	"`response.output_item.done`, then one of `response.completed`, `response.failed` or `response.incomplete` " +
	"(cancelled or denied) with the whole response. Harnest extension: `response.retracted` (`item_ids`, `text`, " +
	"`attempt`) withdraws the items of an attempt lost with its replica, before the rerun's items."

func (b *builder) defineOpenResponsesSchemas() {
	b.define("OpenResponsesError", strictObject("An error in OpenAI's shape.",
		req("error", strictObject("What went wrong.",
			req("message", str("What went wrong and what to do.")),
			req("type", enumStr("The error's class.", "invalid_request_error", "authentication_error", "rate_limit_error", "server_error")),
			req("code", str("A stable code: `invalid_api_key`, `model_not_found`, `previous_response_not_found`, `response_not_found`, ...")),
			req("param", nullableStr("The request field at fault, or null.")),
		)),
	))
	item := openObject("An output item: `message` (role assistant, `output_text` content), `reasoning` "+
		"(`reasoning_text` content), `function_call` (`call_id`, `name`, `arguments`) or `mcp_approval_request` "+
		"(`id`, `name`, `arguments`).",
		req("type", enumStr("The item's type.", "message", "reasoning", "function_call", "mcp_approval_request")),
		req("id", str("The item's ID, the same on every replica and every replay.")),
	)
	b.define("OpenResponsesResponse", openObject("The response object (ResponseResource): every field of the "+
		"specification; `instructions`, `tools`, `tool_choice` and the sampling settings repeat the request (the agent "+
		"decides its own sampling), on every replica, or show neutral values.",
		req("id", str("The response's ID: pass it to GET, cancel, input_items or as `previous_response_id`.")),
		req("object", enumStr("Always `response`.", "response")),
		req("created_at", integer("Unix seconds.")),
		req("status", enumStr("Where the response is.", "queued", "in_progress", "completed", "failed", "incomplete", "cancelled")),
		req("model", str("The agent's name.")),
		req("output", arrayOf("The output items, in order.", item)),
		req("error", describe(&openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Nullable: true},
			"`{code, message}` of a failed response, or null.")),
		req("usage", describe(&openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Nullable: true},
			"`input_tokens`, `output_tokens`, `total_tokens`: the sum the agent reported for this response, or null when it reported none.")),
		req("metadata", freeObject("The request's metadata.")),
		req("background", boolean("Whether it runs in the background.", false)),
		req("store", boolean("False for a response made with `store: false`: it is not kept, and never found afterwards.", true)),
	))
}

func (b *builder) addOpenResponses(doc *openapi3.T) {
	b.defineOpenResponsesSchemas()
	fail := func(status int, desc string) reply { return jsonReply(status, desc, b.ref("OpenResponsesError")) }
	created := jsonReply(200, "The response object; a background request answers at once with status `queued`.", b.ref("OpenResponsesResponse"))
	sse := openapi3.NewStringSchema()
	sse.Description = openResponsesEvents
	created.value.Content[mediaSSE] = &openapi3.MediaType{Schema: inline(sse)}
	body := openObject("A create request (the settings the agent decides for itself, such as sampling, are checked for their type and repeated by the response, not applied).",
		req("model", str("The agent's name (GET /agent `id`).")),
		req("input", anyValue("A string, or items: messages (system, developer, user, assistant; `input_text`, "+
			"`input_image` by http(s) or data URL, `input_file`), or what the previous response waits for: the `function_call_output` of each of its calls, or one `mcp_approval_response`.")),
		opt("instructions", str("Instructions for the agent, in the turn's context.")),
		opt("tools", arrayOf("Function tools, offered to the agent as client tools.", freeObject("`{type: \"function\", name, description?, parameters?, strict?}`"))),
		opt("previous_response_id", str("Continue that response's session.")),
		opt("conversation", anyValue("A session ID (or `{id}`) to continue; create sessions with POST /sessions.")),
		opt("metadata", freeObject("Caller metadata, echoed.")),
		opt("stream", boolean("Answer with the event stream.", false)),
		opt("background", boolean("Run independently of this request.", false)),
		opt("store", boolean("False: the response is not kept (its session is deleted when the turn ends) and cannot continue a stored one; must be true (or left out) with background.", true)),
		opt("parallel_tool_calls", boolean("False: the agent's client tool calls come one per response.", true)),
	)
	common := []reply{fail(400, "The request is invalid."), fail(401, "No valid bearer token (OpenAI's `invalid_api_key`)."),
		fail(404, "No such model, or no such response of the caller's.")}
	doc.AddOperation("/v1/responses", http.MethodPost, &openapi3.Operation{
		Tags: []string{tagOpenResponses}, OperationID: "createOpenResponse", Summary: "Create a response (Open Responses)",
		RequestBody: jsonBody("The create request.", body),
		Responses:   replies(append(common, created, fail(409, "The session is busy with another response."), fail(429, "A limit was reached."))...),
	})
	id := pathParam("responseId", "The response's ID.")
	retrieved := jsonReply(200, "The response object as its events say (on any replica), or with `stream=true` its event stream.", b.ref("OpenResponsesResponse"))
	retrieved.value.Content[mediaSSE] = &openapi3.MediaType{Schema: inline(sse)}
	doc.AddOperation("/v1/responses/{responseId}", http.MethodGet, &openapi3.Operation{
		Tags: []string{tagOpenResponses}, OperationID: "getOpenResponse", Summary: "Retrieve a response, or resume its stream",
		Parameters: openapi3.Parameters{id,
			queryParam("stream", "`true` streams its events (from the start, then live).", false, boolean("", false)),
			queryParam("starting_after", "With `stream=true`: only the events after this `sequence_number`.", false, integer(""))},
		Responses: replies(append(common, retrieved)...),
	})
	doc.AddOperation("/v1/responses/{responseId}/cancel", http.MethodPost, &openapi3.Operation{
		Tags: []string{tagOpenResponses}, OperationID: "cancelOpenResponse", Summary: "Cancel a response, on whichever replica runs it",
		Parameters: openapi3.Parameters{id},
		Responses:  replies(append(common, jsonReply(200, "The response, `cancelled` (or as it ended before).", b.ref("OpenResponsesResponse")))...),
	})
	doc.AddOperation("/v1/responses/{responseId}/input_items", http.MethodGet, &openapi3.Operation{
		Tags: []string{tagOpenResponses}, OperationID: "listOpenResponseInputItems", Summary: "The input items of a response",
		Parameters: openapi3.Parameters{id,
			queryParam("limit", "How many items (1 to 100, default 20).", false, integer("")),
			queryParam("order", "`desc` (the default: newest first) or `asc`.", false, enumStr("", "asc", "desc")),
			queryParam("after", "The ID of the last item of the previous page.", false, str(""))},
		Responses: replies(append(common, jsonReply(200, "A page (`object: list`, `data`, `first_id`, `last_id`, `has_more`) "+
			"of the request's input items, recorded when the response started (so also while it runs, on any replica); "+
			"media as a text placeholder, never the bytes.",
			openObject("A list of input items.", req("object", enumStr("Always `list`.", "list")),
				req("data", arrayOf("The items.", freeObject("A message item."))))))...),
	})
}
