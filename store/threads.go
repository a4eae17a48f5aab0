package store

import "context"

// Threads are the AG-UI transport's record of each thread (a session): the
// response its last run started. It is how a later run finds what the
// thread waits for. A record lasts as long as a receipt does after its
// last put. Owner: the AG-UI door (agui).
type Threads interface {
	// GetThread reads the user's record of a thread; found is false when
	// there is none (or it expired).
	GetThread(ctx context.Context, user, thread string) (rec ThreadRecord, found bool, err error)
	// PutThread replaces the user's record of a thread.
	PutThread(ctx context.Context, user, thread string, rec ThreadRecord) error
}

// ThreadRecord is what a thread's last run started.
type ThreadRecord struct {
	// ResponseID is the response the run started.
	ResponseID string
	// UserKey identifies the user message that started it (the
	// transport's own key; may be empty).
	UserKey string
}
