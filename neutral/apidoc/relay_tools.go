package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Outside agents: tools at home (spec.relay.toolsAtHome), as relay/tools.go,
// relay/tools_call.go and relay/tools_owner.go serve them. A paired outside
// agent calls the agent's own server tools that its owner granted it, with
// its callback token and the run note of the inbox item it works on.

// Statuses of a tool call (store.RelayCall*).
var (
	toolCallFinal   = []string{"completed", "failed", "denied"}
	toolCallWaiting = []string{"awaiting_approval", "approved", "running"}
	toolCallCodes   = []string{"tool_error", "tool_timeout", "approval_denied"}
)

func toolCallStatus() *openapi3.SchemaRef {
	return enumStr("`completed` (ran; `output` is its output), `failed` (ran and failed), `denied` (the owner denied it: "+
		"never run) are final; `awaiting_approval`, `approved` and `running` are not yet.",
		append(append([]string{}, toolCallFinal...), toolCallWaiting...)...)
}

func toolCallCode() *openapi3.SchemaRef {
	return enumStr("Why it failed or was denied: `tool_error` (the tool reported an error), `tool_timeout` (it did "+
		"not finish in time and was stopped), `approval_denied`.", toolCallCodes...)
}

func (b *builder) defineRelayToolSchemas() {
	defer b.defineRelayRecipeSchemas() // relay_recipes.go
	callID := describe(openapi3.NewStringSchema().WithMinLength(1).WithMaxLength(128).WithPattern(`^[^\x00-\x20\x7f]+$`),
		"The caller's ID of this call: 1 to 128 visible characters, unique within the run. Repeating it returns the "+
			"first call's receipt without running the tool again.")
	args := freeObject("The tool's arguments: a JSON object of at most 16 KB (`{}` when left out).")
	b.define("RelayToolCallRequest", strictObject("Exactly `run_note`, `tool`, `call_id` and optionally `arguments`.",
		req("run_note", boundedStr("The `callback.run_note` of the inbox item being worked on.", 1, 1024)),
		req("tool", boundedStr("The exact name of a granted tool (an MCP server's tools are `<server>__<tool>`).", 1, 64)),
		opt("arguments", args),
		req("call_id", callID),
	))
	b.define("RelayToolReceipt", object("A tool call's receipt as the outside agent sees it.",
		req("call_id", str("The call's `call_id`.")),
		req("tool", str("The tool.")),
		req("status", toolCallStatus()),
		opt("output", anyValue("What the tool returned (`completed`), or what went wrong (`failed`).")),
		req("is_error", describe(openapi3.NewBoolSchema(), "True for a final receipt that is not `completed`; false while waiting.")),
		opt("code", toolCallCode()),
		opt("approval_id", str("The owner's approval of this call, when the tool needs one.")),
		req("repeated", describe(openapi3.NewBoolSchema(), "True when the `call_id` was seen before: this is the first call's receipt.")),
	))
	b.define("RelayToolCall", object("A tool call as the owner's receipts show it: never its arguments or output.",
		req("call_id", str("The outside agent's `call_id`.")),
		req("tool", str("The tool.")),
		req("status", toolCallStatus()),
		opt("code", toolCallCode()),
		opt("approval_id", str("The approval (`tool_approval_...`), when the tool needs one.")),
		req("relay_id", str("The inbox item whose run made the call.")),
		req("started_at", relayTime("When the call began.")),
		opt("finished_at", relayTime("When it ended; absent until then.")),
	))
	b.define("RelayToolCalls", object("A participant's tool calls, newest first.",
		req("participant_id", str("The participant's ID.")),
		req("calls", arrayOf("", b.ref("RelayToolCall"))),
	))
	b.define("RelayToolFeedItem", object("The `item` of a `tool_call` feed entry: a call waiting for approval, a "+
		"decision, or an outcome. Never its arguments or output.",
		req("tool", str("The tool.")),
		req("call_id", str("The outside agent's `call_id`.")),
		req("status", toolCallStatus()),
		opt("code", toolCallCode()),
		opt("approval_id", str("Answer it with `POST /owner/outside-agents/tool-approvals/{approvalId}` or "+
			"`POST /approvals/{approvalId}`.")),
	))

	grants := arrayOf("Exact tool names the server offers (`spec.tools`, or `<server>__<tool>` of `spec.mcpServers`), "+
		"at most 100; `[]` grants none.", nonEmptyStr(""))
	grants.Value.WithMaxItems(maxGrants)
	b.define("RelayGrantsRequest", strictObject("Exactly `tools`: the new grants, replacing the old ones.", req("tools", grants)))
	b.define("RelayGrants", object("The tools a participant may call.",
		req("participant_id", str("The participant's ID.")),
		req("tools", arrayOf("The granted tool names, sorted.", str(""))),
	))
	b.define("RelayToolDecision", strictObject("Exactly `decision`.",
		req("decision", enumStr("Approve to run the call; deny and it never runs.", "approve", "deny"))))
}

// maxGrants bounds the tools granted to one participant (relay's maxGrants).
const maxGrants = 100

// toolsOffText is the 404 of every tools-at-home route while they are off.
const toolsOffText = "tools at home are off on this server (`tools_at_home_off`; `spec.relay.toolsAtHome: true` turns them on)"

var relayCallbackSecurity = &openapi3.SecurityRequirements{{relayCallback: []string{}}}

func (b *builder) addRelayTools(doc *openapi3.T) {
	b.addRelayToolCall(doc)

	idParam := pathParam("participantId", "The participant's `participant_id`.")
	noParticipant := b.failure(404, "The caller is not the owner (`not_found`), "+toolsOffText+
		", or no participant has that ID (`participant_not_found`).")
	participantOp := func(id, summary, desc string) *operation {
		return b.ownerOp(id, summary, desc).params(idParam).answers(noParticipant, b.relayUnavailable())
	}
	grantsPath := relayOwner + "participants/{participantId}/grants"
	doc.AddOperation(grantsPath, http.MethodGet, participantOp("getRelayGrants", "Read a participant's tool grants",
		"The exact tool names the participant may call with `POST /api/outside-agents/v1/tools/call`.").
		answers(jsonReply(200, "The grants.", b.ref("RelayGrants"))).done())
	doc.AddOperation(grantsPath, http.MethodPost, participantOp("setRelayGrants", "Replace a participant's tool grants",
		"Only these exact names may be called, each a server tool this server offers (never a client tool). A skill on "+
			"the participant's card is not a grant. The grants last as long as the participant's session.").
		takesRelayJSON(jsonBody("The new grants.", b.ref("RelayGrantsRequest")),
			"invalid_grants; unknown_tool when the server offers no tool of a name").
		answers(jsonReply(200, "The grants after the change.", b.ref("RelayGrants"))).done())
	doc.AddOperation(grantsPath, http.MethodDelete, participantOp("revokeRelayGrants", "Revoke all of a participant's tool grants",
		"Its next tool call gets 403 `tool_not_granted`.").answers(emptyReply(204, "Revoked.")).done())

	limit := openapi3.NewIntegerSchema().WithMin(1).WithMax(100).WithDefault(20)
	doc.AddOperation(relayOwner+"participants/{participantId}/tool-calls", http.MethodGet, participantOp("listRelayToolCalls",
		"Read a participant's tool call receipts",
		"Each call's tool, `call_id` and outcome, newest first (the newest 200 are kept at least, each for a day); "+
			"never its arguments or output.").
		params(queryParam("limit", "How many calls, from 1 to 100.", false, inline(limit))).
		answers(
			jsonReply(200, "The calls, newest first.", b.ref("RelayToolCalls")),
			b.failure(400, "`limit` is not a whole number from 1 to 100 (`invalid_limit`)."),
		).done())

	doc.AddOperation(relayOwner+"tool-approvals/{approvalId}", http.MethodPost, b.ownerOp("decideRelayToolApproval",
		"Approve or deny a tool call",
		"Answers, once, a call of a tool with `approval: true`, named by the `approval_id` of a `tool_call` "+
			"feed entry (`POST /approvals/{approvalId}` does the same). The outside agent's request waiting for it (or "+
			"its next repeat of the `call_id`) then runs the call or gets `denied`.").
		params(pathParam("approvalId", "The call's `approval_id` (`tool_approval_...`).")).
		takesRelayJSON(jsonBody("The decision.", b.ref("RelayToolDecision")), "invalid_decision").
		answers(
			jsonReply(200, "The call after the decision.", b.ref("RelayToolCall")),
			b.failure(404, "The caller is not the owner (`not_found`), "+toolsOffText+", or the owner has no tool call "+
				"approval with that ID (`approval_not_found`)."),
			b.failure(409, "The call was already decided (`already_resolved`)."),
			b.failure(503, "The store is unavailable (`store_unavailable`); try again."),
		).done())
}

func (b *builder) addRelayToolCall(doc *openapi3.T) {
	receipt := b.ref("RelayToolReceipt")
	doc.AddOperation(relayAPI+"tools/call", http.MethodPost, b.relayAPIOp(relayCallbackSecurity, "callRelayTool",
		"Call a granted tool of the agent",
		"Tools at home: runs one server tool the owner granted this participant, once per `call_id`, and "+
			"answers with the call's receipt. Authenticate with the `callback_token` of the exchange (not the session "+
			"token) and send the `callback.run_note` of the inbox item being worked on (valid ten minutes). A run makes "+
			"at most 20 calls; at most 60 requests a minute per participant. A tool with `approval: true` waits for the "+
			"owner for up to about 25 seconds: still waiting is a 202; repeat the same `call_id` (and arguments) to "+
			"wait again.").
		takesRelayJSON(jsonBody("The run note, the tool, its arguments and the call ID.", b.ref("RelayToolCallRequest")),
			"invalid_tool_call").
		answers(
			jsonReply(200, "The call's final receipt: `completed`, `failed` or `denied`.", receipt),
			jsonReply(202, "The call waits for the owner's approval (or runs on another request): repeat the `call_id`.", receipt),
			b.failure(401, "The callback token is missing, invalid or has ended (`invalid_callback_token`): pausing, "+
				"disconnecting or pairing again ends it; pair again for a new one.").headers(openapi3.Headers{
				"WWW-Authenticate": header("`Bearer realm=\"harnest-relay-tools\"`.", str("")),
			}),
			b.failure(403, "The run note is not valid for this participant (`invalid_run_note`) or has expired "+
				"(`run_note_expired`), or the owner has not granted this tool (`tool_not_granted`)."),
			b.failure(404, "Either "+toolsOffText+", or the server offers no tool of that name right now "+
				"(`tool_unavailable`: removed, or its MCP server is down)."),
			b.failure(409, "The `call_id` was already used in this run for another tool or other arguments (`call_id_reused`)."),
			// Replaces relayBodyErrors' 413: the arguments have a bound of their own.
			b.failure(413, "The body is larger than 64 KiB (`request_too_large`), or the arguments exceed 16 KB (`arguments_too_large`)."),
			b.relayLimited("More than 60 tool call requests this minute for this participant (`rate_limited`, with "+
				"`Retry-After`), or the run has made its 20 calls (`run_call_limit`: no more are run for it)."),
		).done())
}
