package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnest/harnest/store"
	"github.com/redis/go-redis/v9"
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
	b, err := s.rdb.Get(ctx, s.evalRunKey(agent)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: read eval run: %w", err)
	}
	return b, true, nil
}
