package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// An Open Responses request record is one STRING under the session's tag,
// the door's JSON as it gave it, kept for the receipt TTL after its put:
//
//	{s:<user>:<session>}:oreq:<id>

func (s *Store) responseRequestKey(user, session, id string) string {
	return s.sessionKeys(user, session).tag + ":oreq:" + escapeID(id)
}

// GetResponseRequest reads the record of a response.
func (s *Store) GetResponseRequest(ctx context.Context, user, session, id string) ([]byte, bool, error) {
	b, err := s.rdb.Get(ctx, s.responseRequestKey(user, session, id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: get response request: %w", err)
	}
	return b, true, nil
}

// PutResponseRequest keeps (or replaces) the record of a response.
func (s *Store) PutResponseRequest(ctx context.Context, user, session, id string, rec []byte) error {
	if err := s.rdb.Set(ctx, s.responseRequestKey(user, session, id), rec, s.receiptTTL).Err(); err != nil {
		return fmt.Errorf("store: put response request: %w", err)
	}
	return nil
}
