package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// The AI SDK's useChat endpoint at /api/chat (server.useChat), as uichat
// serves it: the chat transport's POST, the resume GET and the stop POST.

const tagUseChat = "useChat"

const useChatText = "**useChat.** `POST /api/chat` speaks the Vercel AI SDK's UI message stream protocol " +
	"(`x-vercel-ai-ui-message-stream: v1`): `useChat` with `DefaultChatTransport` works with `api` set to this " +
	"server's `/api/chat` and the bearer token in `headers`. The chat's `id` is the session; the newest user message is " +
	"the turn's input. The turn runs in the background: with `resume: true`, `GET /api/chat/{id}/stream` replays the " +
	"chat's active response from its start, then live, on any replica (204 when nothing runs), and " +
	"`POST /api/chat/{id}/stop` cancels it on whichever replica runs it."

const useChatChunks = "Server-Sent Events, each `data: <chunk>` (no event names), ended by `data: [DONE]`: `start` " +
	"(`messageId` = the harnest response ID), `start-step`, `text-start`/`text-delta`/`text-end`, " +
	"`reasoning-start`/`-delta`/`-end` (the agent's thinking, when the output policy shows it), the agent's tools as " +
	"dynamic tool parts (`tool-input-start`, `tool-input-available`, `tool-output-available`), a client tool as a tool " +
	"part awaiting output (`toolCallId` = the client tool request ID), an approval as `tool-approval-request` " +
	"(`approvalId` = the approval ID), `data-activity`, `data-artifact` (one part per artifact, replaced as it grows), " +
	"`data-state` (transient), `data-decision`, `steering-message` (a steer the turn took), `reset-step` (an attempt lost with its replica is withdrawn), `error`, " +
	"`abort` (cancelled), `finish-step` and `finish` (`finishReason`, `messageMetadata`: responseId, sessionId, status, usage)."

func (b *builder) addUseChat(doc *openapi3.T) {
	stream := openapi3.NewStringSchema()
	stream.Description = useChatChunks
	streamed := reply{status: 200, value: &openapi3.Response{
		Description: ptrTo("The UI message stream (header `x-vercel-ai-ui-message-stream: v1`)."),
		Content:     openapi3.Content{mediaSSE: &openapi3.MediaType{Schema: inline(stream)}},
	}}
	message := openObject("A UIMessage: `{id, role, parts, metadata?}`.",
		req("role", enumStr("Who wrote it.", "user", "assistant", "system")),
		req("parts", arrayOf("Its parts: `text`, `file` (by URL), tool parts (`tool-<name>` or `dynamic-tool`) with `toolCallId`, `state`, `output`, `approval`.", freeObject("A part."))),
		opt("id", str("The message's ID.")))
	body := openObject("What DefaultChatTransport posts, plus what the app adds to its body.",
		req("id", nonEmptyStr("The chat's ID: the harnest session (made on the first message).")),
		opt("messages", arrayOf("The chat's messages; only the newest is read: a user message starts a turn, an assistant message "+
			"answers what the chat waits for (a tool part with its output, or with its approval responded to).", message)),
		opt("message", message),
		opt("trigger", enumStr("What sent it.", "submit-message", "regenerate-message")),
		opt("messageId", str("The message the request is about (sent by the transport; not used).")),
		opt("tools", arrayOf("Client tools the agent may call.", freeObject("`{name, description?, parameters}`"))),
		opt("metadata", freeObject("The response's caller metadata.")),
	)
	chatID := pathParam("chatId", "The chat's ID (its session).")
	doc.AddOperation("/api/chat", http.MethodPost, &openapi3.Operation{
		Tags: []string{tagUseChat}, OperationID: "useChatSend", Summary: "Send a chat message, or answer a tool or approval (useChat)",
		RequestBody: jsonBody("The chat request.", body),
		Responses: replies(streamed, b.failure(400, "The request is invalid."), b.failure(401, "No valid bearer token."),
			b.failure(404, "The answered chat is not the caller's."), b.failure(409, "The chat is busy, or waits for nothing to answer."),
			b.tooLarge(), b.failure(429, "A limit was reached.")),
	})
	doc.AddOperation("/api/chat/{chatId}/stream", http.MethodGet, &openapi3.Operation{
		Tags: []string{tagUseChat}, OperationID: "useChatResume", Summary: "Resume the chat's active stream (useChat resume: true)",
		Parameters: openapi3.Parameters{chatID},
		Responses: replies(streamed, emptyReply(204, "The chat has no active response (or does not exist yet)."),
			b.failure(401, "No valid bearer token.")),
	})
	stopped := openObject("What the stop did.",
		req("id", str("The chat's ID.")),
		req("stopped", boolean("True when this call cancelled the chat's response.", false)),
		req("responseId", nullableStr("The response that was active; null when none was.")),
		req("status", nullableStr("That response's status now (`cancelled`, or how it ended before); null when none was active.")))
	doc.AddOperation("/api/chat/{chatId}/stop", http.MethodPost, &openapi3.Operation{
		Tags: []string{tagUseChat}, OperationID: "useChatStop", Summary: "Stop the chat's running turn, on whichever replica runs it",
		Parameters: openapi3.Parameters{chatID},
		Responses: replies(jsonReply(200, "The stop's outcome.", stopped), b.failure(401, "No valid bearer token."),
			b.failure(404, "No such chat of the caller's.")),
	})
}

func ptrTo(s string) *string { return &s }
