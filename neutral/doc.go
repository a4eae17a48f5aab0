// Package neutral is the neutral HTTP API: discovery (/healthz, /agent, the
// agent card), sessions and transcripts, and POST /responses as JSON or
// Server-Sent Events with response recovery through GET /responses/{id}.
//
// It only translates: requests are checked strictly and turned into
// runtime.Service calls; runtime errors become an HTTP status and a body
// {"detail": "<sentence>", "code": "<stable_code>"} (see errors.go). The
// caller's principal comes from the auth middleware in front of it.
//
// A background POST /responses may carry "webhook": {"url", "events"?}
// (webhook.go): the runtime posts the final receipt there (and with events
// each batch of events) through the outbox, signed with Harnest-Signature:
// t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>"> under the caller's key,
// which GET /webhook-key returns.
package neutral
