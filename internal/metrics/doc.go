// Package metrics counts what a harnest replica does, for Prometheus at
// GET /metrics: HTTP requests by route pattern and gRPC calls by method
// and code, turns by transport, backend and final status, the responses,
// streams, followers, sockets and polls open now, the admission queue, the
// store's commands and errors (Redis; the in-process store reports none),
// the runtime's store failures and model tokens, with the Go runtime and
// process collectors, on a registry of its own.
//
// No label holds a user, a session, a raw path, a key or any text of a
// turn: routes are ServeMux patterns, gRPC methods those of the A2A
// service (else "unknown"), store commands command or script names,
// methods outside the standard ones are "other", and the rest are small
// fixed sets.
package metrics
