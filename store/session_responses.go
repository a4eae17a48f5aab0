package store

import "context"

// SessionStatus is what a session is doing now (runtime: GET
// /sessions/{id}).
type SessionStatus interface {
	// ActiveResponse returns the ID of the response that holds the
	// session's lease now ("" when none does, or the lease lapsed): the
	// running or waiting response of the session. O(1).
	ActiveResponse(ctx context.Context, user, session string) (string, error)
}
