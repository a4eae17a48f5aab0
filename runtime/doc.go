// Package runtime is harnest's core: sessions, transcripts, responses and
// their receipts, the portable event stream, and the Agent interface that
// backends implement. It serves and sends no HTTP (it imports no net/http,
// which server's TestLayers checks): transports (neutral, live, agui, a2a,
// and the other doors) translate their wire formats into its operations
// and map its typed errors (see errors.go) onto their own, and a
// response's webhook deliveries are only enqueued here (Outbox, in
// webhook.go); the outbox package's Dispatcher sends them.
//
// A response runs in its own goroutine: StartResponse checks the request,
// takes the session's lease and writes the in_progress receipt in one store
// round trip, then the agent runs behind the concurrency gate and the
// deadline; the final receipt, the event log, the transcript messages and the
// state delta are committed together in a second round trip. A JSON turn
// that makes a new session skips the first: nobody can know the session
// before the answer, so its final step makes it; a turn that flushes or
// suspends before that begins first.
//
// Doors get the stream and the receipts typed, never as JSON to decode
// again: a response's events as Events (Response.Events and Each while it
// streams, Outcome.Events when ResponseRequest.KeepEvents asks for them),
// the log's as Frames whose Event method reads them back once, here
// (event_decode.go), and receipts as Envelopes (Outcome.Receipt,
// Service.Receipt, ParseReceipt). The JSON stays what the log, SSE and
// live frames carry.
package runtime
