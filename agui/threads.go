package agui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/runtime/store"
)

// A thread record remembers, per user and thread (session), the response
// the thread's last AG-UI run started, and which user message started it.
// It is how a later run finds what the thread waits for: the receipt of
// that response says requires_action and names the wait. The runtime has
// no "pending waits of a session" query; this record stands in for one,
// using exported APIs only (see doc.go).
type threadRecord struct {
	ResponseID string `json:"r"`
	UserKey    string `json:"u,omitempty"`
}

// threads stores thread records.
type threads interface {
	get(ctx context.Context, user, thread string) (threadRecord, bool, error)
	put(ctx context.Context, user, thread string, rec threadRecord) error
}

// redisThreads keeps records in the store's Redis, one string per thread
// under the store's key prefix and the session's hash tag, so that every
// replica sees them. They last as long as receipts.
type redisThreads struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
}

var (
	_ threads = (*redisThreads)(nil)
	_ threads = (*memoryThreads)(nil)
)

func newRedisThreads(st store.Store, prefix string, ttl time.Duration) *redisThreads {
	return &redisThreads{rdb: st.(interface{ Client() redis.UniversalClient }).Client(), prefix: prefix, ttl: ttl}
}

// idEscaper escapes IDs inside keys the way the store does, so no user or
// thread ID can name another's key.
var idEscaper = strings.NewReplacer("%", "%25", ":", "%3A", "{", "%7B", "}", "%7D")

func (t *redisThreads) key(user, thread string) string {
	return t.prefix + "{s:" + idEscaper.Replace(user) + ":" + idEscaper.Replace(thread) + "}:agui:run"
}

func (t *redisThreads) get(ctx context.Context, user, thread string) (threadRecord, bool, error) {
	b, err := t.rdb.Get(ctx, t.key(user, thread)).Bytes()
	if errors.Is(err, redis.Nil) {
		return threadRecord{}, false, nil
	}
	if err != nil {
		return threadRecord{}, false, err
	}
	var rec threadRecord
	if json.Unmarshal(b, &rec) != nil || rec.ResponseID == "" {
		return threadRecord{}, false, nil
	}
	return rec, true, nil
}

func (t *redisThreads) put(ctx context.Context, user, thread string, rec threadRecord) error {
	b, _ := json.Marshal(rec)
	return t.rdb.Set(ctx, t.key(user, thread), b, t.ttl).Err()
}

// memoryThreads keeps records in this process: for a handler built without
// a store (one replica only).
type memoryThreads struct {
	mu   sync.Mutex
	recs map[[2]string]threadRecord
}

func (t *memoryThreads) get(_ context.Context, user, thread string) (threadRecord, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rec, ok := t.recs[[2]string{user, thread}]
	return rec, ok, nil
}

func (t *memoryThreads) put(_ context.Context, user, thread string, rec threadRecord) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.recs == nil {
		t.recs = map[[2]string]threadRecord{}
	}
	t.recs[[2]string{user, thread}] = rec
	return nil
}
