// Package openaiapi serves the agent as an OpenAI-compatible model
// (server.openaiCompat): GET /v1/models and GET /v1/models/{id} list the
// one model, named after the agent (metadata.name), and
// POST /v1/chat/completions runs one turn, as JSON (chat.completion) or
// Server-Sent Events (chat.completion.chunk frames, then data: [DONE]).
//
// The newest user message of the body is the turn's input; the
// conversation goes on in the session the Harnest-Session-Id request header
// names (or a new one), whose transcript is the history: earlier messages
// of the body are never replayed. Every answer carries Harnest-Session-Id.
// An approval or client tool ends the completion with a message that says
// what is needed and how to answer it through the neutral endpoints.
// Errors use OpenAI's shape {"error":{"message","type","code","param"}};
// the door checks bearer tokens itself, so that a refused caller gets a
// 401 in that shape too.
package openaiapi
