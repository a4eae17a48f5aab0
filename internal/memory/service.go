package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/harnest/harnest/store"
)

// Bounds of what a caller may store and ask.
const (
	MaxNamespaceBytes = 128
	MaxKeyBytes       = 256
	MaxValueBytes     = 64 << 10
	MaxTextBytes      = 16 << 10
	MaxQueryBytes     = 2048
	MaxTTLSeconds     = 10 * 365 * 24 * 3600
	DefaultSearchHits = 10
)

// Options build a Service.
type Options struct {
	Store store.Memory
	// Agent is the agent's name (metadata.name): it scopes the memory.
	Agent string
	// Embedder, when set, makes search semantic (nil: keyword).
	Embedder *Embedder
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Service is long-term memory for one agent.
type Service struct {
	o Options
}

// New makes a Service.
func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{o: o}
}

// Semantic reports whether searches rank by embedding.
func (s *Service) Semantic() bool { return s.o.Embedder != nil }

func (s *Service) scope(user string) store.MemoryScope {
	return store.MemoryScope{Agent: s.o.Agent, User: user}
}

// Put is what a caller stores.
type Put struct {
	Namespace string
	Key       string
	Value     json.RawMessage
	Text      string
	// TTLSeconds is how long the item lives (0: until deleted).
	TTLSeconds int64
}

// Put stores an item in the user's memory (replacing the one under the
// same namespace and key).
func (s *Service) Put(ctx context.Context, user string, p Put) (store.MemoryItem, error) {
	if err := checkPut(p); err != nil {
		return store.MemoryItem{}, err
	}
	now := s.o.Now()
	item := store.MemoryItem{Scope: s.scope(user), Namespace: p.Namespace, Key: p.Key, Value: compact(p.Value), Text: p.Text}
	if p.TTLSeconds > 0 {
		item.ExpiresAt = now.Add(time.Duration(p.TTLSeconds) * time.Second)
	}
	if s.o.Embedder != nil {
		v, err := s.o.Embedder.Embed(ctx, embeddingText(item))
		if err != nil {
			return store.MemoryItem{}, err
		}
		item.Embedding = v
	}
	return s.o.Store.PutMemory(ctx, item, now)
}

// Get reads one item of the user's memory.
func (s *Service) Get(ctx context.Context, user, namespace, key string) (store.MemoryItem, bool, error) {
	if err := checkName("namespace", namespace, MaxNamespaceBytes); err != nil {
		return store.MemoryItem{}, false, err
	}
	if err := checkName("key", key, MaxKeyBytes); err != nil {
		return store.MemoryItem{}, false, err
	}
	return s.o.Store.GetMemory(ctx, s.scope(user), namespace, key, s.o.Now())
}

// List returns up to limit items of a namespace with keys after after.
func (s *Service) List(ctx context.Context, user, namespace, after string, limit int) ([]store.MemoryItem, error) {
	if err := checkName("namespace", namespace, MaxNamespaceBytes); err != nil {
		return nil, err
	}
	return s.o.Store.ListMemory(ctx, s.scope(user), namespace, after, limit, s.o.Now())
}

// Delete removes an item; found is false when there was none.
func (s *Service) Delete(ctx context.Context, user, namespace, key string) (bool, error) {
	if err := checkName("namespace", namespace, MaxNamespaceBytes); err != nil {
		return false, err
	}
	if err := checkName("key", key, MaxKeyBytes); err != nil {
		return false, err
	}
	return s.o.Store.DeleteMemory(ctx, s.scope(user), namespace, key, s.o.Now())
}

// Search is what a caller looks for.
type Search struct {
	Query string
	// Namespace limits the search ("": every namespace).
	Namespace string
	// Limit is how many hits at most (0: DefaultSearchHits).
	Limit int
}

// Search ranks the user's items: by embedding when the agent has an
// embedder, by keyword otherwise.
func (s *Service) Search(ctx context.Context, user string, q Search) ([]store.MemoryHit, error) {
	if err := checkSearch(&q); err != nil {
		return nil, err
	}
	mq := store.MemoryQuery{Namespace: q.Namespace, Text: q.Query, Limit: q.Limit}
	if s.o.Embedder != nil {
		v, err := s.o.Embedder.Embed(ctx, q.Query)
		if err != nil {
			return nil, err
		}
		mq.Embedding = v
	}
	return s.o.Store.SearchMemory(ctx, s.scope(user), mq, s.o.Now())
}

// embeddingText is what an item is embedded from: its text, else its key
// and value.
func embeddingText(it store.MemoryItem) string {
	if it.Text != "" {
		return it.Text
	}
	return fmt.Sprintf("%s: %s", it.Key, it.Value)
}
