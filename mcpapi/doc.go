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
// nobody else whether it exists. MCP sessions live in the replica that
// opened them (the turns themselves are in the store). The handler is an
// io.Closer: Close ends every session, for shutdown.
//
// Sessions are bounded (sessions.go), since each holds the SDK's state
// (about 16 KiB) until its client deletes it, which most clients never do:
//
//   - DefaultMaxSessionsPerUser (20) per user: room for one person's
//     clients (desktop, IDE, inspector), each reconnecting a few times,
//     while one caller cannot fill the replica. Without auth every caller
//     is the anonymous user and the 20 are shared, as the runtime's
//     per-user limits are. Past it: 429 too_many_mcp_sessions.
//   - DefaultMaxSessions (1000) per replica, about 16 MiB. Past it: 503
//     mcp_sessions_full (another replica may have room).
//   - DefaultSessionIdleTimeout (10 minutes): a session that received no
//     request for that long ends, and its client re-initialises on the
//     404 (one round trip). A call in progress, its elicitations included,
//     keeps its session (the SDK's clock stops during a request); the turns
//     and sessions of the conversation are in the store, so nothing but the
//     MCP handshake is lost. An hour kept a forgotten session's memory six
//     times longer for nothing.
//
// The refusals carry Retry-After. server.mcp has no settings of its own:
// the bounds are these constants (Options sets them for tests).
package mcpapi
