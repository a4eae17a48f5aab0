// Package metrics counts what a harnest replica does, for Prometheus at
// GET /metrics: HTTP requests by route pattern, turns by transport,
// backend and final status, the responses, streams, sockets and polls
// open now, the admission queue, store failures and model tokens, with
// the Go runtime and process collectors, on a registry of its own.
//
// No label holds a user, a session, a raw path or any text of a turn:
// routes are ServeMux patterns, methods outside the standard ones are
// "other", and the rest are small fixed sets.
package metrics
