package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Completion webhooks: the `webhook` member of POST /responses, the POSTs
// the server sends (an OpenAPI callback), and GET /webhook-key, as
// neutral/webhook.go and runtime/webhook.go serve them.

const webhookDescription = "Harnest extension, with `\"background\": true` only: once the run ends its final receipt " +
	"(byte for byte what `GET /responses/{responseId}` answers) is POSTed to `url`, and with `events` every batch of " +
	"events before it, in order. Any replica sends them, at least once (dedupe on `Harnest-Delivery-Id`), retried with " +
	"backoff on anything but a 2xx. Each POST is signed: `Harnest-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of " +
	"\"<t>.<body>\">` under the key of `GET /webhook-key`. A webhook without `background`, a URL the server may not " +
	"reach, or a server that sends no webhooks is a 400 (`invalid_request`) and nothing runs."

// webhookSchema is the `webhook` member of a POST /responses body.
func webhookSchema() *openapi3.SchemaRef {
	return strictObject(webhookDescription,
		req("url", nonEmptyStr("Where to POST: an absolute https URL without credentials. Private, loopback or "+
			"link-local hosts only when listed in `server.outbound.allowHosts`; plain http only to a listed loopback "+
			"host. Redirects are followed only within the URL's origin.")),
		opt("events", boolean("Also POST each batch of events as it is recorded, as "+
			"`{\"type\": \"response.events\", \"responseId\", \"sessionId\", \"events\": [...]}`.", false)),
	)
}

// webhookCallbacks describes the POSTs a webhook receives, as an OpenAPI
// callback of POST /responses.
func (b *builder) webhookCallbacks() openapi3.Callbacks {
	batch := strictObject("A batch of events (only with `webhook.events`).",
		req("type", enumStr("Always `response.events`.", "response.events")),
		req("responseId", str("The response the events belong to.")),
		req("sessionId", str("The response's session.")),
		req("events", arrayOf("The events, each the `data` of one SSE frame of the response's stream.",
			freeObject("One event."))),
	)
	body := &openapi3.Schema{OneOf: openapi3.SchemaRefs{b.ref("ResponseEnvelope"), batch}}
	body.Description = "The final receipt, or (with `events`) a batch of events."
	signature := headerParam("Harnest-Signature", "`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">` under "+
		"the key of `GET /webhook-key`.", str(""))
	signature.Value.Required = true
	delivery := headerParam("Harnest-Delivery-Id", "The delivery's ID (`dlv_...`): the same on every retry of one "+
		"delivery, so dedupe on it.", str(""))
	delivery.Value.Required = true
	response := headerParam("Harnest-Response-Id", "The response the delivery is about.", str(""))
	response.Value.Required = true

	post := &openapi3.Operation{
		OperationID: "receiveResponseWebhook",
		Summary:     "What a completion webhook receives",
		Description: "Sent to `webhook.url` of a background `POST /responses`: the batches of events (with `events`) " +
			"and then the final receipt, in order, each at least once. Verify `Harnest-Signature` before trusting the body.",
		Parameters:  openapi3.Parameters{signature, delivery, response},
		RequestBody: jsonBody("The receipt or a batch of events.", inline(body)),
		Responses: replies(
			emptyReply(200, "Any 2xx acknowledges the delivery; anything else (or no answer) is retried with backoff."),
		),
	}
	cb := openapi3.NewCallback(openapi3.WithCallback("{$request.body#/webhook/url}", &openapi3.PathItem{Post: post}))
	return openapi3.Callbacks{"completionWebhook": &openapi3.CallbackRef{Value: cb}}
}

func (b *builder) addWebhookKey(doc *openapi3.T) {
	doc.AddOperation("/webhook-key", http.MethodGet, b.op(tagResponses, "getWebhookKey", "Read the key that signs your webhooks",
		"Harnest extension: the HMAC-SHA256 key (hex) that signs the completion webhooks of the caller's "+
			"background responses; each user has a key of their own. Verify `Harnest-Signature: t=<t>,v1=<v1>` by "+
			"computing the hex HMAC-SHA256 of `<t>.<body>` under the hex-decoded key and comparing it with `v1`.").
		answers(
			jsonReply(200, "The key and how it signs.", strictObject("A webhook signing key.",
				req("key", describe(openapi3.NewStringSchema().WithPattern(`^[0-9a-f]{64}$`), "The key: 32 bytes, hex.")),
				req("algorithm", enumStr("Always `HMAC-SHA256`.", "HMAC-SHA256")),
				req("header", enumStr("Always `Harnest-Signature`.", "Harnest-Signature")),
				req("signs", enumStr("`<t>.<body>`: the header's timestamp, a dot and the request body.", "<t>.<body>")),
			)).example(map[string]any{"key": "9f2c4e7a1b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8",
				"algorithm": "HMAC-SHA256", "header": "Harnest-Signature", "signs": "<t>.<body>"}),
			b.failure(503, "The state store is unavailable (`store_unavailable`); retry shortly."),
		).done())
}
