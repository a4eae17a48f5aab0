// Package mcpapi serves the agent as an MCP server over Streamable HTTP at
// /mcp (server.mcp), with the official Go SDK.
//
// The server offers one tool, named after the agent (metadata.name), whose
// input is {message, sessionId?}: a call runs one turn for the caller and
// returns the answer as text content and as structured content {text,
// sessionId, responseId, status}. Text deltas go out as
// notifications/progress when the client sent a progress token. An approval
// or a client tool either ends the call with status requires_action and
// what to answer (POST /approvals/{id}, POST /client-tools/{id}), or, when
// the client declared elicitation, is asked of the client
// (elicitation/create) and answered through the runtime, and the call
// returns the final answer.
//
// The caller of every call is the user of the HTTP request that carried it
// (auth.From, handed to the SDK as its TokenInfo), and an MCP session
// belongs to the user that initialised it: another user's request on it
// gets 404, the answer to an unknown session ID, so that a session ID tells
// nobody else whether it exists.
//
// Every request of a session may reach any replica (a round-robin load
// balancer in front):
//
//   - The session ID is a token sealed with the key every replica shares
//     (runtime.SealToken), for its user, holding what the client said in
//     initialize (capabilities, client, protocol version). It opens only
//     for that user (404 otherwise). Whether the session lives is in the
//     store (store.MCPSessions): put at initialize, touched by every
//     request on any replica, deleted by DELETE (copies.go, liveness.go).
//   - Each replica serves a session's requests with its own copy of the
//     SDK's session, made from the ID the first time one reaches it and
//     closed after SessionIdleTimeout without a request there.
//   - A tool call runs on the replica its POST reached, which holds the
//     POST's SSE stream: its progress notifications and its
//     elicitation/create go out there. The client's answer to the
//     elicitation, or its notifications/cancelled for the call, may reach
//     another replica: that replica publishes it on the runtime's control
//     channel (runtime.PublishDoorMessage), and the replica that holds the
//     call takes it in as if it had come there (relayconn.go, relay.go).
//     Requests the server sends carry IDs of the copy that sent them
//     ("harnest:<copy>:<n>") so that their answers find it.
//
// The handler is an io.Closer: Close ends this replica's copies, for
// shutdown (the sessions live on: their clients go on on another
// replica).
//
// A replica's copies are bounded (sessions.go), since each holds the SDK's
// state (about 16 KiB) until it is idle or its client deletes it, which most
// clients never do:
//
//   - DefaultMaxSessionsPerUser (20) per user: room for one person's
//     clients (desktop, IDE, inspector), each reconnecting a few times,
//     while one caller cannot fill the replica. Without auth every caller
//     is the anonymous user and the 20 are shared, as the runtime's
//     per-user limits are. Past it: 429 too_many_mcp_sessions.
//   - DefaultMaxSessions (1000) per replica, about 16 MiB. Past it: 503
//     mcp_sessions_full (another replica may have room).
//   - DefaultSessionIdleTimeout (10 minutes): a session that received no
//     request on any replica for that long ends on every replica, and its
//     client re-initialises on the 404 (one round trip). A request in
//     progress (a call, its elicitations included, or an open stream) keeps
//     its session alive on every replica; the turns and sessions of the
//     conversation are in the store, so nothing but the MCP handshake is
//     lost. An hour kept a forgotten session's memory six times longer for
//     nothing.
//
// The refusals carry Retry-After. server.mcp has no settings of its own:
// the bounds are these constants (Options sets them for tests). The bounds
// count a replica's copies: a user may hold 20 copies on each replica.
//
// The protocol is the one the Go SDK speaks with sessions (up to
// 2025-11-25). The 2026-07-28 protocol, sessionless by design, is not
// served yet: the SDK v1.8.0 speaks it only in its stateless mode, where
// the server cannot send the client requests (no elicitation). A request
// of that protocol gets the SDK's error that lists the versions served, so
// that its client falls back to initialize.
package mcpapi
