package redisstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/harnest/harnest/store"
)

// An AG-UI thread's record is one STRING under the session's tag (the
// thread is the session), {"r": response ID, "u": user key} as JSON,
// kept for the receipt TTL after its last put:
//
//	{s:<user>:<thread>}:agui:run

func (s *Store) threadKey(user, thread string) string {
	return s.sessionKeys(user, thread).tag + ":agui:run"
}

// threadJSON is a thread record as stored.
type threadJSON struct {
	ResponseID string `json:"r"`
	UserKey    string `json:"u,omitempty"`
}

// GetThread reads the user's record of a thread.
func (s *Store) GetThread(ctx context.Context, user, thread string) (store.ThreadRecord, bool, error) {
	b, found, err := s.getString(ctx, s.threadKey(user, thread), "get thread")
	if err != nil || !found {
		return store.ThreadRecord{}, false, err
	}
	var rec threadJSON
	if err := json.Unmarshal([]byte(b), &rec); err != nil {
		return store.ThreadRecord{}, false, fmt.Errorf("store: decode thread %q: %w", thread, err)
	}
	return store.ThreadRecord{ResponseID: rec.ResponseID, UserKey: rec.UserKey}, true, nil
}

// PutThread replaces the user's record of a thread.
func (s *Store) PutThread(ctx context.Context, user, thread string, rec store.ThreadRecord) error {
	b, err := json.Marshal(threadJSON{ResponseID: rec.ResponseID, UserKey: rec.UserKey})
	if err != nil {
		return fmt.Errorf("store: encode thread: %w", err)
	}
	if err := s.rdb.Set(ctx, s.threadKey(user, thread), b, s.receiptTTL).Err(); err != nil {
		return fmt.Errorf("store: put thread: %w", err)
	}
	return nil
}
