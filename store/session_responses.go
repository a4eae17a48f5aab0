package store

import "context"

// SessionStatus is what a session is doing now (runtime: GET
// /sessions/{id}).
type SessionStatus interface {
	// ActiveResponse returns the ID of the response that holds the
	// session's lease now ("" when none does, or the lease lapsed): the
	// running or waiting response of the session. O(1).
	ActiveResponse(ctx context.Context, user, session string) (string, error)
	// SessionResponses returns up to limit of the session's responses,
	// newest first, whose sequence is below before (before < 1: from the
	// newest): O(log N + limit) whatever the session's size. A response
	// is in it from its BeginResponse (or the commit that made its
	// session) until the session is deleted, also once its receipt
	// expired.
	SessionResponses(ctx context.Context, user, session string, before int64, limit int) ([]SessionResponse, error)
}

// SessionResponse is a response of a session and its place among them:
// Seq counts the session's responses from 1, in the order they began.
type SessionResponse struct {
	ID  string
	Seq int64
}
