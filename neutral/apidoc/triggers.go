package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Triggers: signed inbound webhooks (package trigger)

const tagTriggers = "Triggers"

const triggersTagDescription = "Harnest extension: named inbound triggers (`server.triggers` in config.yaml), signed " +
	"webhooks that start a turn or answer a waiting one, so that an agent can wait days for an outside event. A delivery " +
	"is authenticated by its signature, not a bearer token: Standard Webhooks (`webhook-id`, `webhook-timestamp`, " +
	"`webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, several space-separated signatures allowed) or " +
	"GitHub's `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` with `X-GitHub-Delivery`. A timestamp more " +
	"than `toleranceSeconds` (default 300) from now, either way, and a delivery ID seen within `rememberSeconds` are " +
	"refused. The payload maps by templates over JSON pointers to the input and the session (`ticket-{/ticket}`), or, " +
	"when it names a wait at `answer.waitId`, to an approval's decision or a client tool's output. A refused delivery " +
	"changes nothing and is logged without its payload."

func (b *builder) addTriggers(doc *openapi3.T) {
	doc.Tags = append(doc.Tags, &openapi3.Tag{Name: tagTriggers, Description: triggersTagDescription})
	optionalHeader := func(name, desc string) *openapi3.ParameterRef { return headerParam(name, desc, str("")) }
	view := object("An accepted delivery.",
		req("trigger", str("The trigger's name.")),
		req("deliveryId", str("The delivery's ID (`webhook-id` or `X-GitHub-Delivery`).")),
		req("action", enumStr("`started`: a background turn started; `answered`: a waiting turn resumes.", "started", "answered")),
		req("responseId", str("The response: `GET /responses/{responseId}?sessionId=` (as the trigger's user) reads its receipt.")),
		req("sessionId", str("Its session: the session key's text when it is a valid session ID, else `trigger-<name>-<hash>`; a new session without a key.")),
		opt("waitId", str("The approval or client tool request answered (action `answered`).")),
	)
	doc.AddOperation("/triggers/{name}", http.MethodPost, &openapi3.Operation{
		Tags: []string{tagTriggers}, OperationID: "deliverTrigger", Summary: "Deliver a signed webhook to a trigger",
		Description: "Harnest extension: verifies the delivery's signature, refuses replays, maps the payload, then starts a " +
			"background turn as the trigger's `user` or answers the wait the payload names. Needs no bearer token.",
		Security: &openapi3.SecurityRequirements{},
		Parameters: openapi3.Parameters{
			pathParam("name", "The trigger's name, as in `server.triggers`."),
			optionalHeader("webhook-id", "Standard Webhooks: the delivery's ID."),
			optionalHeader("webhook-timestamp", "Standard Webhooks: seconds since 1970 when it was sent."),
			optionalHeader("webhook-signature", "Standard Webhooks: space-separated `v1,<base64>` signatures."),
			optionalHeader("X-Hub-Signature-256", "GitHub: `sha256=<hex>`."),
			optionalHeader("X-GitHub-Delivery", "GitHub: the delivery's ID."),
		},
		RequestBody: jsonBody("The sender's payload, any JSON value, signed as sent.", anyValue("The payload.")),
		Responses: replies(
			jsonReply(202, "Accepted: the turn started, or the wait was answered.", view),
			b.failure(400, "The payload does not map (`invalid_payload`): not JSON, or a template's pointer has no value; the detail names it."),
			b.failure(401, "Refused (`invalid_signature`): a missing, malformed or wrong signature, a missing header, or a stale or future timestamp."),
			b.failure(404, "No trigger of that name (`trigger_not_found`), or the wait the payload names is not the trigger user's."),
			b.failure(409, "A replay (`delivery_replayed`): this delivery ID was accepted before; or the wait is already answered, or the session is busy."),
			b.tooLarge(),
		),
	})
}
