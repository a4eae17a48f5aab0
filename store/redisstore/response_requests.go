package redisstore

import (
	"context"
	"fmt"
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
	b, found, err := s.getString(ctx, s.responseRequestKey(user, session, id), "get response request")
	if err != nil || !found {
		return nil, false, err
	}
	return []byte(b), true, nil
}

// PutResponseRequest keeps (or replaces) the record of a response.
func (s *Store) PutResponseRequest(ctx context.Context, user, session, id string, rec []byte) error {
	if err := s.rdb.Set(ctx, s.responseRequestKey(user, session, id), rec, s.receiptTTL).Err(); err != nil {
		return fmt.Errorf("store: put response request: %w", err)
	}
	return nil
}
