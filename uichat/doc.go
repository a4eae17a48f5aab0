// Package uichat serves the Vercel AI SDK's useChat (server.useChat): the
// UI message stream protocol (Server-Sent Events of JSON chunks, header
// x-vercel-ai-ui-message-stream: v1, ended by data: [DONE]) at /api/chat,
// the AI SDK's default chat API, behind the server's auth.
//
// POST /api/chat takes the body DefaultChatTransport sends ({id, messages,
// trigger, messageId}, plus the app's "tools" and "metadata"). The chat's
// ID is the harnest session (made on the first message, per user); the
// newest user message is the turn's input (earlier messages are already
// in the session's transcript). The turn runs in the background, so a
// reload does not stop it. Its events become chunks (encoder): start
// (messageId = the harnest response ID), start-step, text-*, reasoning-*
// (when the output policy shows thinking), tool-input-*/tool-output-
// available for the agent's tools (dynamic), data-activity, data-artifact,
// data-state and data-decision parts, steering-message (a steer the turn
// took), reset-step (an attempt lost with its replica withdrawn), error,
// abort (cancelled), finish-step and finish (its
// messageMetadata names the response, status and usage).
//
// A client tool the agent calls is a static tool part awaiting output
// (toolCallId = the client tool request ID); an approval is a tool part
// with tool-approval-request (approvalId = the approval ID). The next POST
// carries the answer in its newest assistant message (the part with its
// output, or with its approval responded to) and streams the rest.
//
// GET /api/chat/{id}/stream (useChat's resume: true) replays the chat's
// active response from its start, then follows it live, on any replica;
// 204 when nothing runs. POST /api/chat/{id}/stop cancels the active
// response on whichever replica runs it.
package uichat
