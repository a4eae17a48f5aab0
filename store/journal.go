package store

import "context"

// Journals are the resume points of running turns (owner: runtime,
// runtime/journal.go). A backend that runs a turn in steps (a model call,
// a tool call) records each completed step as a resume point; when its
// replica is lost, the replica that claims the run (ClaimRun) reads them
// back, withdraws only the events logged after the last one, and the next
// attempt replays the recorded steps instead of running them again.
// A run's journal lives beside its receipt (the same Redis Cluster slot),
// expires with it at the latest, and goes with its session.
type Journals interface {
	// RecordPoint logs p.Events (consecutive events not logged yet, as
	// AppendEvents does, telling the response's listeners) and keeps the
	// resume point p.Key → p.Data with p.Sequence, the sequence of the last
	// event the turn emitted so far, in one write (one round trip). A point
	// recorded again under the same key replaces it. ErrFenced (nothing
	// logged nor kept): the run's epoch is not p.Epoch.
	RecordPoint(ctx context.Context, p ResumePoint) error
	// Journal reads a run's resume points (an empty Journal with Sequence
	// -1 when it has none, or they expired).
	Journal(ctx context.Context, user, session, responseID string) (Journal, error)
}

// ResumePoint is one completed step of a turn (Journals.RecordPoint).
type ResumePoint struct {
	User, Session, ResponseID string
	// Epoch is the attempt that records it (0 is taken as 1).
	Epoch int
	// Key names the step, stable from one attempt to the next; Data is
	// what the backend needs to replay it (opaque to the store).
	Key  string
	Data []byte
	// Sequence is the sequence of the last event emitted before the
	// point: the events up to it are the completed steps'.
	Sequence int
	// Events are the events not logged yet, up to Sequence, logged with
	// the point (none: they are all logged).
	Events []Event
}

// Journal is what a run's resume points hold.
type Journal struct {
	// Points are the recorded steps by key (nil when none).
	Points map[string][]byte
	// Sequence is the sequence of the last event before the last
	// recorded point (-1: none).
	Sequence int
}
