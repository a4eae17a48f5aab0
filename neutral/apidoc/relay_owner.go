package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Outside agents: the owner's endpoints of relay/owner.go (pairing codes,
// participants and the feed). Tools at home and recipes are in
// relay_tools.go and relay_recipes.go.

// ownerOp is an operation of the relay's owner endpoints: the auth
// middleware may answer it 401.
func (b *builder) ownerOp(id, summary, desc string) *operation {
	return b.relayOp(tagRelayOwner, id, summary, desc).answers(b.ownerUnauthorized())
}

func (b *builder) addRelayOwner(doc *openapi3.T) {
	notOwner := b.failure(404, "The caller is not the owner (`not_found`).")
	noParticipant := b.failure(404, "The caller is not the owner (`not_found`), or no participant has that ID "+
		"(`participant_not_found`).")
	idParam := pathParam("participantId", "The participant's `participant_id`.")
	participant := jsonReply(200, "The participant after the change.", b.ref("RelayParticipant"))

	doc.AddOperation(relayOwner+"pairings", http.MethodPost, b.ownerOp("createRelayPairing", "Create a pairing code",
		"A single-use code, valid five minutes, for a participant of this `name` and `kind`, or of a "+
			"recipe (`{\"name\", \"recipe\"}`: the kind is the recipe's id). "+
			"`harnest pair --server URL --name N --kind K` calls this with the owner's token (`HARNEST_TOKEN`).").
		takesRelayJSON(jsonBody("The name and kind (or recipe) the outside agent must present.", b.ref("RelayPairingRequest")),
			"invalid_request").
		answers(
			// Replaces relayBodyErrors' 400: a recipe adds three reasons.
			b.failure(400, "The body is not a UTF-8 JSON object (`invalid_json`) or could not be read (`invalid_body`); "+
				"or no recipe has that id (`unknown_recipe`), the recipe has no supported door (`recipe_no_door`), or "+
				"`kind` is given and is not the recipe's id (`recipe_kind_mismatch`)."),
			jsonReply(201, "The code.", b.ref("RelayPairing")),
			notOwner,
			b.relayUnavailable(),
		).done())

	doc.AddOperation(relayOwner+"participants", http.MethodGet, b.ownerOp("listRelayParticipants", "List participants", "").
		answers(
			jsonReply(200, "Every participant with its state.", b.ref("RelayParticipants")),
			notOwner,
			b.relayUnavailable(),
		).done())

	for _, c := range []struct{ action, id, summary, desc string }{
		{"pause", "pauseRelayParticipant", "Pause a participant",
			"While paused its inbox is empty, its replies get 409 and turns for it fail at once."},
		{"resume", "resumeRelayParticipant", "Resume a participant", "It answers turns again."},
	} {
		doc.AddOperation(relayOwner+"participants/{participantId}/"+c.action, http.MethodPost,
			b.ownerOp(c.id, c.summary, c.desc+" No body is needed.").
				params(idParam).answers(participant, noParticipant, b.relayUnavailable()).done())
	}

	disconnect := func(id, summary string) *openapi3.Operation {
		return b.ownerOp(id, summary, "Removes the participant and ends its session token: its next request gets 401.").
			params(idParam).answers(emptyReply(204, "Disconnected."), noParticipant, b.relayUnavailable()).done()
	}
	doc.AddOperation(relayOwner+"participants/{participantId}/disconnect", http.MethodPost,
		disconnect("disconnectRelayParticipant", "Disconnect a participant"))
	doc.AddOperation(relayOwner+"participants/{participantId}", http.MethodDelete,
		disconnect("deleteRelayParticipant", "Disconnect a participant (DELETE)"))

	feedLimit := openapi3.NewIntegerSchema().WithMin(1).WithMax(100).WithDefault(5)
	doc.AddOperation(relayOwner+"feed", http.MethodGet, b.ownerOp("getRelayFeed",
		"Read the newest notices, stage items and tool calls", "").
		params(queryParam("limit", "How many entries, from 1 to 100.", false, inline(feedLimit))).
		answers(
			jsonReply(200, "The newest entries, newest first.", b.ref("RelayFeed")),
			b.failure(400, "`limit` is not a whole number from 1 to 100 (`invalid_limit`)."),
			notOwner,
			b.relayUnavailable(),
		).done())

	stream := "Server-Sent Events: `event: notice`, `event: stage` or `event: tool_call`, `id: <entry id>`, " +
		"`data: <RelayFeedEntry JSON>`; comments keep the connection alive every 15 seconds."
	doc.AddOperation(relayOwner+"feed/stream", http.MethodGet, b.ownerOp("followRelayFeed",
		"Follow notices, stage items and tool calls live",
		"Sends the entries after `Last-Event-ID` or `after` (the later of the two when both are sent, as a "+
			"reconnecting EventSource does), or only new ones when neither is given, "+
			"then follows the feed live from any replica.").
		params(
			queryParam("after", "Resume after this entry `id`; with `Last-Event-ID` too, after the later of the two.", false, str("")),
			headerParam("Last-Event-ID", "The `id` of the last frame received, as EventSource clients send it.", str("")),
		).
		answers(
			sseReply("The feed, live.", stream, "event: notice\nid: 1764494100000-0\ndata: {\"id\": \"1764494100000-0\", \"participant_id\": "+
				"\"5b0c…\", \"name\": \"My CLI\", \"kind\": \"cli\", \"type\": \"notice\", \"text\": \"Back in ten minutes.\", "+
				"\"at\": \"2026-11-30T09:15:00.000Z\"}\n\n"),
			b.failure(400, "`Last-Event-ID` (or `after`) is not an ID from this stream (`invalid_cursor`)."),
			notOwner,
			b.relayUnavailable(),
		).done())
}
