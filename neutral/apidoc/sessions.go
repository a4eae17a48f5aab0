package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// The session operations.

func (b *builder) sessionNotFound() reply { return b.failure(404, "Session not found") }

// listOp is a paged list of the sessions API: its own parameters (own)
// come before limit and cursor, and it answers a page (pageDesc, the
// schema named page) or the 400 of a bad cursor or limit, whose detail is
// like badCursor.
func (b *builder) listOp(id, summary, desc string, own []*openapi3.ParameterRef, pageDesc, page, badCursor string) *operation {
	return b.op(tagSessions, id, summary, desc).
		params(own...).
		params(limitParam(), cursorParam()).
		answers(
			jsonReply(200, pageDesc, b.ref(page)),
			b.failure(400, "The cursor or limit is invalid, for example `"+badCursor+"`."),
		)
}

func (b *builder) addSessions(doc *openapi3.T) {
	doc.AddOperation("/sessions", http.MethodPost, b.op(tagSessions, "createSession", "Create a session",
		"Creating a session first is optional: `POST /responses` without `sessionId` creates one. "+
			"Create one here to choose its ID or give it initial state.").
		takesJSON(jsonBody("Send `{}` to let the server choose the ID.", strictObject("A new session.",
			opt("id", nonEmptyStr("The session ID. When omitted, the server makes one: a version 7 UUID as 32 hex digits, so that IDs made later sort later.")),
			opt("state", freeObject("The initial session state. Defaults to `{}`.")),
		))).
		answers(
			jsonReply(201, "The new session.", b.ref("Session")),
			b.failure(400, "The body is not valid JSON, has unknown fields, an empty `id`, or a `state` that is not an object."),
			b.failure(409, "Session already exists"),
		).done())

	doc.AddOperation("/sessions", http.MethodGet, b.listOp("listSessions", "List sessions",
		"Lists the caller's sessions in session ID order, one page at a time.", nil,
		"A page of sessions.", "SessionPage", "Invalid session cursor").done())

	doc.AddOperation("/sessions/{sessionId}", http.MethodGet, b.op(tagSessions, "getSession", "Read a session and its status",
		"Returns the session with what it is doing now: `status` (`idle`, `running`, `waiting` or `queued`), "+
			"the active response's ID (`activeResponseId`, the response that holds the session) and, when waiting, "+
			"what it waits for (`waitingOn`: an approval or a client tool call, with its ID).").
		params(sessionPathParam()).
		answers(
			jsonReply(200, "The session with its status.", b.ref("Session")),
			b.sessionNotFound(),
		).done())

	doc.AddOperation("/sessions/{sessionId}", http.MethodPatch, b.op(tagSessions, "updateSession", "Update session state",
		"Merges `stateDelta` into the session state at the top level: each key replaces the whole previous value.").
		params(sessionPathParam()).
		takesJSON(jsonBody("The state change.", strictObject("A state update.",
			req("stateDelta", freeObject("The keys to set in the session state.")),
		))).
		answers(
			jsonReply(200, "The updated session.", b.ref("Session")),
			b.failure(400, "Expected stateDelta object"),
			b.sessionNotFound(),
		).done())

	doc.AddOperation("/sessions/{sessionId}", http.MethodDelete, b.op(tagSessions, "deleteSession", "Delete a session", "").
		params(sessionPathParam()).
		answers(
			emptyReply(204, "The session was deleted."),
			b.sessionNotFound(),
			b.failure(409, "A response is running in this session."),
		).done())

	inSession := []*openapi3.ParameterRef{sessionPathParam()}
	doc.AddOperation("/sessions/{sessionId}/messages", http.MethodGet, b.listOp("listSessionMessages",
		"Read a session transcript",
		"Returns the conversation oldest first, one page at a time. New messages may be appended between pages.", inSession,
		"A page of the transcript.", "MessagePage", "Invalid transcript cursor").
		answers(b.sessionNotFound()).done())

	doc.AddOperation("/sessions/{sessionId}/responses", http.MethodGet, b.listOp("listSessionResponses",
		"List a session's responses",
		"Returns the session's responses newest first, one page at a time, each with its receipt's status "+
			"and error code. A response is listed from the moment it begins until the session is deleted; its status "+
			"is null once its receipt expired.", inSession,
		"A page of the session's responses.", "SessionResponsePage",
		"Invalid cursor: it is not a cursor of this session's responses").
		answers(b.sessionNotFound()).done())
}
