package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// The session operations.

func (b *builder) addSessions(doc *openapi3.T) {
	doc.AddOperation("/sessions", http.MethodPost, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "createSession",
		Summary:     "Create a session",
		Description: "Creating a session first is optional: `POST /responses` without `sessionId` creates one. " +
			"Create one here to choose its ID or give it initial state.",
		RequestBody: jsonBody("Send `{}` to let the server choose the ID.", strictObject("A new session.",
			opt("id", nonEmptyStr("The session ID. When omitted, the server makes one: a version 7 UUID as 32 hex digits, so that IDs made later sort later.")),
			opt("state", freeObject("The initial session state. Defaults to `{}`.")),
		)),
		Responses: replies(
			jsonReply(201, "The new session.", b.ref("Session")),
			b.failure(400, "The body is not valid JSON, has unknown fields, an empty `id`, or a `state` that is not an object."),
			b.failure(409, "Session already exists"),
			b.tooLarge(),
			b.notJSON(),
		),
	})

	doc.AddOperation("/sessions", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "listSessions",
		Summary:     "List sessions",
		Description: "Lists the caller's sessions in session ID order, one page at a time.",
		Parameters:  openapi3.Parameters{limitParam(), cursorParam()},
		Responses: replies(
			jsonReply(200, "A page of sessions.", b.ref("SessionPage")),
			b.failure(400, "The cursor or limit is invalid, for example `Invalid session cursor`."),
		),
	})

	doc.AddOperation("/sessions/{sessionId}", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "getSession",
		Summary:     "Read a session and its status",
		Description: "Returns the session with what it is doing now: `status` (`idle`, `running`, `waiting` or `queued`), " +
			"the active response's ID (`activeResponseId`, the response that holds the session) and, when waiting, " +
			"what it waits for (`waitingOn`: an approval or a client tool call, with its ID).",
		Parameters: openapi3.Parameters{sessionPathParam()},
		Responses: replies(
			jsonReply(200, "The session with its status.", b.ref("Session")),
			b.failure(404, "Session not found"),
		),
	})

	doc.AddOperation("/sessions/{sessionId}", http.MethodPatch, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "updateSession",
		Summary:     "Update session state",
		Description: "Merges `stateDelta` into the session state at the top level: each key replaces the whole previous value.",
		Parameters:  openapi3.Parameters{sessionPathParam()},
		RequestBody: jsonBody("The state change.", strictObject("A state update.",
			req("stateDelta", freeObject("The keys to set in the session state.")),
		)),
		Responses: replies(
			jsonReply(200, "The updated session.", b.ref("Session")),
			b.failure(400, "Expected stateDelta object"),
			b.failure(404, "Session not found"),
			b.tooLarge(),
			b.notJSON(),
		),
	})

	doc.AddOperation("/sessions/{sessionId}", http.MethodDelete, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "deleteSession",
		Summary:     "Delete a session",
		Parameters:  openapi3.Parameters{sessionPathParam()},
		Responses: replies(
			emptyReply(204, "The session was deleted."),
			b.failure(404, "Session not found"),
			b.failure(409, "A response is running in this session."),
		),
	})

	doc.AddOperation("/sessions/{sessionId}/messages", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "listSessionMessages",
		Summary:     "Read a session transcript",
		Description: "Returns the conversation oldest first, one page at a time. New messages may be appended between pages.",
		Parameters:  openapi3.Parameters{sessionPathParam(), limitParam(), cursorParam()},
		Responses: replies(
			jsonReply(200, "A page of the transcript.", b.ref("MessagePage")),
			b.failure(400, "The cursor or limit is invalid, for example `Invalid transcript cursor`."),
			b.failure(404, "Session not found"),
		),
	})

	doc.AddOperation("/sessions/{sessionId}/responses", http.MethodGet, &openapi3.Operation{
		Tags:        []string{tagSessions},
		OperationID: "listSessionResponses",
		Summary:     "List a session's responses",
		Description: "Returns the session's responses newest first, one page at a time, each with its receipt's status " +
			"and error code. A response is listed from the moment it begins until the session is deleted; its status " +
			"is null once its receipt expired.",
		Parameters: openapi3.Parameters{sessionPathParam(), limitParam(), cursorParam()},
		Responses: replies(
			jsonReply(200, "A page of the session's responses.", b.ref("SessionResponsePage")),
			b.failure(400, "The cursor or limit is invalid, for example `Invalid cursor: it is not a cursor of this session's responses`."),
			b.failure(404, "Session not found"),
		),
	})
}
