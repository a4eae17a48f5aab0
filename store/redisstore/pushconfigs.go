package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// A task's push notification configs live beside the user's tasks, under
// the hash tag {a2a:<user>}:
//
//	{a2a:<user>}:p:<taskId>   HASH config ID -> the config's JSON
//
// The hash lasts the receipt TTL after its last put. A task has few
// configs (the caller bounds them), so a list reads the hash whole.

func (s *Store) pushKey(user, taskID string) string {
	return s.taskTag(user) + ":p:" + escapeID(taskID)
}

// pushConfigJSON is a config as stored.
type pushConfigJSON struct {
	ID              string `json:"id"`
	URL             string `json:"url"`
	Token           string `json:"token,omitempty"`
	AuthScheme      string `json:"authScheme,omitempty"`
	AuthCredentials string `json:"authCredentials,omitempty"`
	Protocol        string `json:"protocol,omitempty"`
}

// putPushScript writes a config unless it is new and the task is full.
// KEYS: the task's hash. ARGV: ID, JSON, max (< 1: none), TTL (ms).
// Returns 1, or 0 when full.
var putPushScript = redis.NewScript(`
if tonumber(ARGV[3]) > 0 and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0
  and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`)

// PutPushConfig creates or replaces a config: one round trip.
func (s *Store) PutPushConfig(ctx context.Context, user, taskID string, c store.PushConfig, maxPerTask int) (store.PushConfig, error) {
	if c.ID == "" {
		c.ID = strings.ToLower(rand.Text())
	}
	b, err := json.Marshal(pushConfigJSON(c))
	if err != nil {
		return c, fmt.Errorf("store: encode push config: %w", err)
	}
	ok, err := putPushScript.Run(ctx, s.rdb, []string{s.pushKey(user, taskID)}, c.ID, b, maxPerTask,
		s.receiptTTL.Milliseconds()).Int()
	if err != nil {
		return c, fmt.Errorf("store: put push config: %w", err)
	}
	if ok == 0 {
		return c, store.ErrPushConfigsFull
	}
	return c, nil
}

func pushConfigFrom(raw string) (store.PushConfig, error) {
	var c pushConfigJSON
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return store.PushConfig{}, fmt.Errorf("store: a stored push config is not readable: %w", err)
	}
	return store.PushConfig(c), nil
}

// GetPushConfig reads one config.
func (s *Store) GetPushConfig(ctx context.Context, user, taskID, id string) (store.PushConfig, bool, error) {
	raw, err := s.rdb.HGet(ctx, s.pushKey(user, taskID), id).Result()
	if err == redis.Nil {
		return store.PushConfig{}, false, nil
	}
	if err != nil {
		return store.PushConfig{}, false, fmt.Errorf("store: get push config: %w", err)
	}
	c, err := pushConfigFrom(raw)
	return c, err == nil, err
}

// ListPushConfigs returns a page of a task's configs in ID order.
func (s *Store) ListPushConfigs(ctx context.Context, user, taskID, after string, limit int) ([]store.PushConfig, bool, error) {
	all, err := s.rdb.HGetAll(ctx, s.pushKey(user, taskID)).Result()
	if err != nil {
		return nil, false, fmt.Errorf("store: list push configs: %w", err)
	}
	ids := make([]string, 0, len(all))
	for id := range all {
		if id > after {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := []store.PushConfig{}
	for i, id := range ids {
		if limit > 0 && i == limit {
			return out, true, nil
		}
		c, err := pushConfigFrom(all[id])
		if err != nil {
			return nil, false, err
		}
		out = append(out, c)
	}
	return out, false, nil
}

// DeletePushConfig removes a config.
func (s *Store) DeletePushConfig(ctx context.Context, user, taskID, id string) (bool, error) {
	n, err := s.rdb.HDel(ctx, s.pushKey(user, taskID), id).Result()
	if err != nil {
		return false, fmt.Errorf("store: delete push config: %w", err)
	}
	return n > 0, nil
}
