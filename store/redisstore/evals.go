package redisstore

import (
	"context"
	"fmt"

	"github.com/harnest/harnest/store"
)

// An agent's last eval run is one STRING, kept until the next run
// replaces it:
//
//	evals:last:<agent>

func (s *Store) evalRunKey(agent string) string {
	return s.prefix + "evals:last:" + escapeID(agent)
}

// PutEvalRun replaces the agent's last run.
func (s *Store) PutEvalRun(ctx context.Context, agent string, summary []byte) error {
	if len(summary) > store.MaxEvalRunBytes {
		return store.ErrEvalRunTooLarge
	}
	if err := s.rdb.Set(ctx, s.evalRunKey(agent), summary, 0).Err(); err != nil {
		return fmt.Errorf("store: put eval run: %w", err)
	}
	return nil
}

// LastEvalRun reads the agent's last run.
func (s *Store) LastEvalRun(ctx context.Context, agent string) ([]byte, bool, error) {
	b, found, err := s.getString(ctx, s.evalRunKey(agent), "read eval run")
	if err != nil || !found {
		return nil, false, err
	}
	return []byte(b), true, nil
}
