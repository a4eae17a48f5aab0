package memstore

import (
	"context"
	"sync"

	"github.com/harnest/harnest/store"
)

// evalRunsSpace is the in-process store's last eval run per agent.
type evalRunsSpace struct {
	closed *closedFlag // the store's: set by Close

	mu   sync.Mutex
	last map[string][]byte
}

func newEvalRunsSpace(closed *closedFlag) *evalRunsSpace {
	return &evalRunsSpace{closed: closed, last: map[string][]byte{}}
}

// PutEvalRun replaces the agent's last run.
func (e *evalRunsSpace) PutEvalRun(ctx context.Context, agent string, summary []byte) error {
	if err := e.closed.check(); err != nil {
		return err
	}
	if len(summary) > store.MaxEvalRunBytes {
		return store.ErrEvalRunTooLarge
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.last[agent] = copyBytes(summary)
	return nil
}

// LastEvalRun reads the agent's last run.
func (e *evalRunsSpace) LastEvalRun(ctx context.Context, agent string) ([]byte, bool, error) {
	if err := e.closed.check(); err != nil {
		return nil, false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.last[agent]
	return copyBytes(b), ok, nil
}
