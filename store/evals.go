package store

import (
	"context"
	"errors"
)

// EvalRuns keep the summary of the last `harnest eval` run of each agent
// (a JSON object, by the agent's name), so that the playground of a
// replica on the same store can show it. Owner: package eval (written by
// harnest eval --redis-url, read by its route GET /evals/last).
type EvalRuns interface {
	// PutEvalRun replaces the agent's last run with summary: a JSON
	// object of at most MaxEvalRunBytes (ErrEvalRunTooLarge, nothing
	// written, past it).
	PutEvalRun(ctx context.Context, agent string, summary []byte) error
	// LastEvalRun reads the agent's last run; false when there is none.
	// The slice is the caller's.
	LastEvalRun(ctx context.Context, agent string) ([]byte, bool, error)
}

// MaxEvalRunBytes bounds one eval run's summary.
const MaxEvalRunBytes = 256 << 10

// ErrEvalRunTooLarge: an eval run's summary is larger than
// MaxEvalRunBytes; nothing was written.
var ErrEvalRunTooLarge = errors.New("store: the eval run's summary is larger than 256 KiB")
