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
// belongs to the user that initialised it: the SDK refuses another user's
// requests on it. MCP sessions live in the replica that opened them (the
// turns themselves are in the store). The handler is an io.Closer: Close
// ends every session, for shutdown.
package mcpapi
