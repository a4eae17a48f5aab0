package store

import "context"

// ResponseRequests are the Open Responses door's record of the request
// that made each response: what the response object repeats of it
// (instructions, tools, tool_choice, sampling fields ...) and its input
// items, so that GET /v1/responses/{id} and its input_items answer as the
// create request did, on any replica, from the moment the response starts.
// A record is the door's JSON, opaque to the store, one per response
// segment (id is the door's); it lasts as long as a receipt does after its
// put. Owner: the Open Responses door (openaiapi).
type ResponseRequests interface {
	// PutResponseRequest keeps (or replaces) the record of a response of
	// the user's session.
	PutResponseRequest(ctx context.Context, user, session, id string, rec []byte) error
	// GetResponseRequest reads it; found is false when there is none (never
	// put, or expired).
	GetResponseRequest(ctx context.Context, user, session, id string) (rec []byte, found bool, err error)
}
