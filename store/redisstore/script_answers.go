package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// Many scripts answer with a number: what they counted or wrote, or one of
// a few numbers by which they refuse and write nothing. A table of those
// refusals, beside each script, says which store error each one is.

// runCounting runs a call whose script answers with a number (see
// countedAnswer).
func (s *Store) runCounting(ctx context.Context, c scriptCall, what string, refusals map[int64]error) (int64, error) {
	n, err := s.runScript(ctx, c).Int64()
	return countedAnswer(n, err, what, refusals)
}

// runCountingScript is runCounting for a script run on its own
// (Script.Run).
func (s *Store) runCountingScript(ctx context.Context, script *redis.Script, keys []string, what string, refusals map[int64]error, args ...any) (int64, error) {
	n, err := script.Run(ctx, s.rdb, keys, args...).Int64()
	return countedAnswer(n, err, what, refusals)
}

// countedAnswer returns a counting script's answer n, or, with 0, the
// error refusals gives for it; what names the operation in the error err
// of the call itself.
func countedAnswer(n int64, err error, what string, refusals map[int64]error) (int64, error) {
	if err != nil {
		return 0, fmt.Errorf("store: %s: %w", what, err)
	}
	if refused, ok := refusals[n]; ok {
		return 0, refused
	}
	return n, nil
}

// fencedRefusal is the refusal of a script that answers -2 when the
// writer's epoch is not the run's (fencedLua).
var fencedRefusal = map[int64]error{-2: store.ErrFenced}
