package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Outside agents: the relay (relay-poll-v1) and its owner endpoints, as
// relay/handler.go and relay/owner.go serve them.

const (
	tagRelay      = "Outside agents"
	tagRelayOwner = "Outside agents: owner"

	// relayProtocol names the protocol the relay endpoints speak; every
	// relay and owner operation carries it as x-protocol.
	relayProtocol = "relay-poll-v1"

	relaySession  = "relaySession"
	relayCallback = "relayCallback"

	relayAPI   = "/api/outside-agents/v1/"
	relayOwner = "/owner/outside-agents/"
)

const relayTagDescription = "The relay, protocol `relay-poll-v1`: an outside agent (a CLI assistant, an SDK agent, " +
	"anything that reads a question and prints an answer) pairs once with a code the owner created, then long-polls " +
	"its inbox and posts replies, without opening any port. A session token lasts eight hours and is sent as " +
	"`Authorization: Bearer <token>`; an invalid or expired one gets 401 (`invalid_session`): pair again. " +
	"Limits, in minute buckets shared by every replica: exchange 20 per client address, session status 30 and " +
	"inbox plus replies together 60 per participant, tool calls 60 per participant; a 429 carries `Retry-After` in seconds. Bodies are JSON objects " +
	"of at most 64 KiB (413 beyond), sent as `application/json` (415 otherwise); unknown fields get 422."

const relayOwnerTagDescription = "Owner-only management of outside agents (protocol `relay-poll-v1`): list " +
	"recipes and create pairing codes, list, pause, resume and disconnect participants, read or follow their notices, " +
	"stage items and tool calls, and (with tools at home) grant tools, answer tool call approvals and read the " +
	"receipts. The owner is a user whose token has `owner: true`, or the anonymous local user when the server has no " +
	"tokens. Anyone else gets 404, as for anything a user does not own."

func relayTime(desc string) *openapi3.SchemaRef {
	s := openapi3.NewDateTimeSchema()
	s.Example = "2026-11-30T09:15:00.000Z"
	return describe(s, desc+" UTC, with milliseconds.")
}

func boundedStr(desc string, minLen, maxLen uint64) *openapi3.SchemaRef {
	s := openapi3.NewStringSchema().WithMinLength(int64(minLen)).WithMaxLength(int64(maxLen))
	return describe(s, desc)
}

func boundedInt(desc string, minV, maxV float64) *openapi3.SchemaRef {
	return describe(openapi3.NewIntegerSchema().WithMin(minV).WithMax(maxV), desc)
}

// defineRelaySchemas defines the relay's schemas, each group after those
// it refers to.
func (b *builder) defineRelaySchemas() {
	defer b.defineRelayToolSchemas() // relay_tools.go
	b.defineRelayLook()
	b.defineRelayExchangeSchemas()
	b.defineRelayInboxSchemas()
	b.defineRelayStageSchemas()
	b.defineRelayOwnerSchemas()
}

// defineRelayExchangeSchemas: the card an outside agent pairs with and
// the session it gets.
func (b *builder) defineRelayExchangeSchemas() {
	b.define("RelayParticipantName", boundedStr("The participant's name: plain text without markup, "+
		"1 to 80 characters, not blank.", 1, 80))
	b.define("RelayParticipantKind", describe(openapi3.NewStringSchema().WithMinLength(1).WithMaxLength(40).
		WithPattern(`^[a-z0-9._-]{1,40}$`), "The participant's kind, such as `cli`: lower-case letters, digits, `-`, `_` and `.`."))

	b.define("RelayExchangeRequest", strictObject("Exactly `code` and `card`.",
		req("code", boundedStr("The pairing code the owner created (single use, valid five minutes), for example "+
			"`K7QM-X2PA-9RTW`.", 1, 64)),
		req("card", openObject("The outside agent's card. `name` and `kind` must match exactly what the owner chose "+
			"for this code.",
			req("name", b.ref("RelayParticipantName")),
			req("kind", b.ref("RelayParticipantKind")),
			opt("description", boundedStr("What the outside agent is: plain text without markup, at most 500 characters.", 1, 500)),
			opt("capabilities", openObject("The card's capabilities; only `extensions` is read.",
				opt("extensions", arrayOf("Card extensions. The alive extension (uri `"+aliveExtensionURI+"`, "+
					"`required: false`, `params` with `look`, `colors`, `display_name` and/or `alive_json`, an https URL "+
					"of an .alive.json file) gives the participant its look; any other is ignored.", freeObject("An extension."))),
			)),
			opt("skills", func() *openapi3.SchemaRef {
				s := arrayOf("At most 100 skill objects.", freeObject("A skill."))
				s.Value.WithMaxItems(100)
				return s
			}()),
		)),
	))
	b.define("RelayExchangeResult", object("A new session.",
		req("token", str("The session token: send it as `Authorization: Bearer <token>`. It is shown once, stored "+
			"hashed, and lasts eight hours.")),
		req("participant_id", str("The participant's ID.")),
		req("expires_at", relayTime("When the session token expires.")),
		opt("callback_token", describe(openapi3.NewStringSchema().WithPattern(`^hrn_cb_[0-9a-f]{64}$`),
			"Only with tools at home on (`spec.relay.toolsAtHome`): the callback token for "+
				"`POST /api/outside-agents/v1/tools/call`, sent as `Authorization: Bearer <callback_token>`. Shown once, "+
				"stored hashed; it lasts as long as the session and ends when the owner pauses or disconnects the "+
				"participant or it pairs again.")),
	))
}

// defineRelayInboxSchemas: the inbox an outside agent polls, its replies
// and its session's status.
func (b *builder) defineRelayInboxSchemas() {
	b.define("RelayInboxItem", object("A question for the outside agent. It repeats in every poll until it is "+
		"answered or its deadline passes.",
		req("relay_id", str("The item's ID, to name in the reply.")),
		req("text", str("The question.")),
		req("asked_at", relayTime("When the question was asked.")),
		req("deadline_at", relayTime("The last moment a reply is accepted (at most 60 seconds after `asked_at`).")),
		opt("callback", object("Only with tools at home on: what lets the work on this item call tools.",
			req("run_note", str("The run note to send as `run_note` to `POST /api/outside-agents/v1/tools/call`: "+
				"signed by the server, bound to this participant and this item, valid ten minutes from `asked_at`; "+
				"every poll hands out the same one.")),
		)),
	))
	inbox := arrayOf("The pending items, at most five; empty when there is nothing to answer or the participant is paused.",
		b.ref("RelayInboxItem"))
	inbox.Value.WithMaxItems(5)
	b.define("RelayInbox", object("The participant's inbox.", req("items", inbox)))

	b.define("RelayReplyRequest", strictObject("Exactly `relay_id` and `text`.",
		req("relay_id", boundedStr("The `relay_id` of an inbox item.", 1, 64)),
		req("text", boundedStr("The answer: not blank, at most 4,000 UTF-8 characters, no control characters but "+
			"newlines and tabs.", 1, 4000)),
	))
	b.define("RelayAccepted", object("The request was accepted.",
		req("accepted", describe(openapi3.NewBoolSchema().WithEnum(true), "Always true."))))
	b.define("RelayExpired", object("The item's deadline passed; the reply was not accepted. Do not retry expired work.",
		req("accepted", describe(openapi3.NewBoolSchema().WithEnum(false), "Always false.")),
		req("code", enumStr("", "item_expired")),
		req("detail", str("A sentence saying what happened.")),
	))
	b.define("RelaySessionStatus", object("The participant's session.",
		req("participant_id", str("The participant's ID.")),
		req("state", enumStr("`paused` while the owner paused the participant: its inbox is empty and replies get 409.",
			"active", "paused")),
		req("expires_at", relayTime("When the session token expires.")),
	))
}

// defineRelayStageSchemas: the notices and stage items an outside agent
// sends its owner.
func (b *builder) defineRelayStageSchemas() {
	stageText := func(desc string, maxLen uint64) *openapi3.SchemaRef {
		return boundedStr(desc+": plain text without markup or outside links, not blank.", 1, maxLen)
	}
	typeIs := func(t string) field { return req("type", enumStr("", t)) }
	lines := arrayOf("At most six lines.", stageText("A line, at most 120 characters", 120))
	lines.Value.WithMaxItems(6)
	link := describe(openapi3.NewStringSchema().WithMinLength(1).WithMaxLength(200).WithPattern(`^/([^/].*)?$`),
		"A path on this site, such as `/dashboard`: no scheme, host, `:`, backslash, spaces or non-ASCII characters.")
	b.define("RelayStageItem", inline(&openapi3.Schema{
		Description: "A stage item: `say` (one every five seconds), `ask`, `progress`, `card` or `gesture`. " +
			"Unknown fields or types, markup, over-long text or outside links get 422 (`invalid_item`).",
		OneOf: openapi3.SchemaRefs{
			strictObject("Say a line, or ask the owner something.",
				req("type", enumStr("", "say", "ask")), req("text", stageText("The line, at most 280 characters", 280))),
			strictObject("Progress of the current work.", typeIs("progress"),
				req("step", boundedInt("From 0 to `total`.", 0, 1000)),
				req("total", boundedInt("From 1 to 1000.", 1, 1000)),
				opt("label", stageText("At most 80 characters", 80))),
			strictObject("A small card.", typeIs("card"),
				req("title", stageText("At most 80 characters", 80)),
				opt("lines", lines),
				opt("link", inline(link.Value))),
			strictObject("A gesture.", typeIs("gesture"),
				req("name", enumStr("", "wave", "nod", "shrug", "think", "celebrate", "point", "bow"))),
		},
	}))
	b.define("RelayNoticeRequest", inline(&openapi3.Schema{
		Description: "Either a notice (`text`) or a stage item (`item`), not both.",
		OneOf: openapi3.SchemaRefs{
			strictObject("A notice to the owner: at most three an hour.",
				req("text", boundedStr("Plain text without markup, not blank, at most 600 characters.", 1, 600))),
			strictObject("A stage item: at most 12 a minute.", req("item", b.ref("RelayStageItem"))),
		},
	}))
}

// defineRelayOwnerSchemas: what the owner endpoints take and answer:
// pairing codes, participants and their feed.
func (b *builder) defineRelayOwnerSchemas() {
	pairing := strictObject("`name` and a `kind` or a `recipe` (or both, when `kind` is the recipe's id): the card "+
		"the outside agent must present.",
		req("name", b.ref("RelayParticipantName")),
		opt("kind", b.ref("RelayParticipantKind")),
		opt("recipe", nonEmptyStr("The `id` of a recipe (`GET /owner/outside-agents/recipes`): the code's kind is then "+
			"the recipe's id.")),
	)
	pairing.Value.AnyOf = openapi3.SchemaRefs{
		inline(&openapi3.Schema{Required: []string{"kind"}}),
		inline(&openapi3.Schema{Required: []string{"recipe"}}),
	}
	b.define("RelayPairingRequest", pairing)
	b.define("RelayPairing", object("A single-use pairing code.",
		req("code", str("The code, such as `K7QM-X2PA-9RTW`. Give it to the outside agent privately.")),
		req("name", str("The name the outside agent must present.")),
		req("kind", str("The kind the outside agent must present.")),
		req("expires_at", relayTime("When the code expires (five minutes after it was created).")),
		opt("recipe", str("The recipe the code was created for, when one was named.")),
	))
	b.define("RelayParticipant", object("A paired outside agent.",
		req("participant_id", str("The participant's ID.")),
		req("name", str("Its name.")),
		req("kind", str("Its kind.")),
		opt("description", str("The description on its card, if any.")),
		req("state", enumStr("", "active", "paused")),
		req("paired_at", relayTime("When it paired.")),
		req("expires_at", relayTime("When its session token expires.")),
		opt("look", b.ref("RelayLook")),
	))
	b.define("RelayParticipants", object("Every participant.",
		req("participants", arrayOf("", b.ref("RelayParticipant")))))
	b.define("RelayFeedEntry", object("A notice or a stage item a participant sent, or a tool call it made.",
		req("id", str("The entry's ID in the feed (`<ms>-<seq>`); usable as `Last-Event-ID`.")),
		req("participant_id", str("Who sent it.")),
		req("name", str("The participant's name.")),
		req("kind", str("The participant's kind.")),
		req("type", enumStr("", "notice", "stage", "tool_call")),
		opt("text", str("The notice's text (`notice`).")),
		opt("item", describe(openapi3.NewObjectSchema(), "The stage item, normalised (`stage`; see RelayStageItem), or "+
			"the tool call's state (`tool_call`; see RelayToolFeedItem).")),
		req("at", relayTime("When it was accepted.")),
		opt("look", b.ref("RelayLook")),
	))
	b.define("RelayFeed", object("The newest entries, newest first.",
		req("items", arrayOf("", b.ref("RelayFeedEntry")))))
}

func (b *builder) relayLimited(desc string) reply {
	return b.failure(429, desc).headers(openapi3.Headers{
		"Retry-After": header("Seconds to wait before trying again (at least 1).",
			describe(openapi3.NewIntegerSchema().WithMin(1), "")),
	})
}

func (b *builder) relayUnauthorized() reply {
	return b.failure(401, "The session token is missing, invalid or expired, or the owner disconnected the participant "+
		"(`invalid_session`): ask the owner for a new pairing code and pair again.").headers(openapi3.Headers{
		"WWW-Authenticate": header("`Bearer realm=\"harnest-relay\"`.", str("")),
	})
}

// ownerUnauthorized is the auth middleware's answer on the owner endpoints.
func (b *builder) ownerUnauthorized() reply {
	return b.failure(401, "The server has tokens and the bearer token is missing (`unauthorized`) or not valid "+
		"(`invalid_token`).")
}

func (b *builder) relayBodyErrors(code string) []reply {
	return []reply{
		b.failure(400, "The body is not a UTF-8 JSON object (`invalid_json`) or could not be read (`invalid_body`)."),
		b.failure(413, "The body is larger than 64 KiB (`request_too_large`)."),
		b.failure(415, "Content-Type must be application/json (`unsupported_media_type`)."),
		b.failure(422, "The body breaks a rule (`"+code+"`); `detail` is a sentence saying which."),
	}
}

func (b *builder) relayUnavailable() reply {
	return b.failure(503, "The relay's store is unavailable (`unavailable`); try again shortly.")
}

var (
	relaySessionSecurity = &openapi3.SecurityRequirements{{relaySession: []string{}}}
	relayNoSecurity      = &openapi3.SecurityRequirements{{}}
)

func (b *builder) addRelay(doc *openapi3.T) {
	b.addRelayAPI(doc)
	b.addRelayOwner(doc)
	b.addRelayTools(doc)   // relay_tools.go
	b.addRelayRecipes(doc) // relay_tools.go
}

// relayAPIOp is an operation of the relay's API for outside agents, called
// with sec; its store may be unavailable.
func (b *builder) relayAPIOp(sec *openapi3.SecurityRequirements, id, summary, desc string) *operation {
	return b.relayOp(tagRelay, id, summary, desc).security(sec).answers(b.relayUnavailable())
}

func (b *builder) addRelayAPI(doc *openapi3.T) {
	pollLimited := b.relayLimited("More than 60 inbox and reply requests this minute for this participant (`rate_limited`).")

	doc.AddOperation(relayAPI+"pairings/exchange", http.MethodPost, b.relayAPIOp(relayNoSecurity, "exchangeRelayPairing",
		"Pair: exchange a pairing code for a session token",
		"Consumes the owner's single-use code; the card's `name` and `kind` must match the owner's choice "+
			"(for a code made from a recipe, `kind` is the recipe's id). No bearer token is needed. At most 20 a minute per "+
			"client address. The card may carry the alive extension (`capabilities.extensions[]` with uri "+
			"`"+aliveExtensionURI+"`): a valid one becomes the participant's `look`, an invalid one is ignored "+
			"whole and the pairing goes on. With tools at home on, the answer also holds a `callback_token`.").
		takesRelayJSON(jsonBody("The code and the outside agent's card.", b.ref("RelayExchangeRequest")),
			"invalid_request, or card_mismatch when name or kind differ from the owner's choice").
		answers(
			jsonReply(201, "Paired.", b.ref("RelayExchangeResult")),
			b.failure(401, "The code is unknown, already used or expired (`invalid_code`)."),
			b.relayLimited("More than 20 exchanges this minute from this address (`rate_limited`)."),
		).done())

	waitSchema := openapi3.NewFloat64Schema().WithMin(0).WithMax(20).WithDefault(0)
	doc.AddOperation(relayAPI+"inbox", http.MethodGet, b.relayAPIOp(relaySessionSecurity, "pollRelayInbox", "Long-poll the inbox",
		"Returns the pending items at once, or waits up to `wait` seconds for one. Items repeat until "+
			"answered or expired; at most five are pending. A paused participant gets an empty inbox. "+
			"With tools at home on, each item carries `callback.run_note`. "+
			"Counts towards the 60 inbox-plus-reply requests a minute.").
		params(queryParam("wait", "Seconds to wait for an item, clamped to 0–20; missing, invalid or negative means 0.",
			false, inline(waitSchema))).
		answers(
			jsonReply(200, "The pending items (possibly none).", b.ref("RelayInbox")),
			b.relayUnauthorized(),
			pollLimited,
		).done())

	doc.AddOperation(relayAPI+"replies", http.MethodPost, b.relayAPIOp(relaySessionSecurity, "postRelayReply", "Answer an inbox item",
		"The reply becomes the turn's answer. It must arrive before the item's `deadline_at`. "+
			"Counts towards the 60 inbox-plus-reply requests a minute.").
		takesRelayJSON(jsonBody("The item and its answer.", b.ref("RelayReplyRequest")), "invalid_reply").
		answers(
			jsonReply(200, "Accepted.", b.ref("RelayAccepted")),
			b.relayUnauthorized(),
			b.failure(404, "No inbox item of this participant has that `relay_id` (`item_not_found`)."),
			b.failure(409, "The owner paused this participant (`participant_paused`), or the item was already answered "+
				"(`already_answered`)."),
			jsonReply(410, "The item's deadline passed (`item_expired`); the reply was not accepted.", b.ref("RelayExpired")),
			pollLimited,
		).done())

	doc.AddOperation(relayAPI+"session/status", http.MethodGet, b.relayAPIOp(relaySessionSecurity, "getRelaySessionStatus",
		"Read the session's status", "At most 30 a minute per participant.").
		answers(
			jsonReply(200, "The session.", b.ref("RelaySessionStatus")),
			b.relayUnauthorized(),
			b.relayLimited("More than 30 status requests this minute for this participant (`rate_limited`)."),
		).done())

	doc.AddOperation(relayAPI+"notices", http.MethodPost, b.relayAPIOp(relaySessionSecurity, "postRelayNoticeOrStageItem",
		"Send a notice or a stage item to the owner",
		"Notices and stage items share this path: `{\"text\": ...}` is a notice (plain text, at most 600 "+
			"characters, three an hour); `{\"item\": {...}}` is a stage item (`say`, `progress`, `card`, `gesture` "+
			"or `ask`; 12 a minute and one `say` every five seconds). Both reach the owner's feed.").
		takesRelayJSON(jsonBody("A notice or a stage item.", b.ref("RelayNoticeRequest")),
			"invalid_notice for a notice, invalid_item for a stage item").
		answers(
			jsonReply(202, "Accepted: stored in the owner's feed.", b.ref("RelayAccepted")),
			b.relayUnauthorized(),
			b.relayLimited("A fourth notice within the hour (`notice_limit`), or a 13th stage item within the minute "+
				"or a `say` within five seconds of the last (`stage_limit`); it was not stored."),
		).done())
}
