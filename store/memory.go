package store

import (
	"context"
	"encoding/json"
	"time"
)

// Memory is long-term memory: items that outlive sessions, kept per agent
// and per user (MemoryScope), in namespaces, each under a key, with a JSON
// value, a text to search, and an optional time to live. Search ranks the
// items of one scope by keyword (the tokens of the query found in the
// item's key, text and string values: memory_search.go) or, when the query
// carries an embedding, by cosine similarity to the embeddings stored with
// the items. A scope never sees another's items. Expired items are never
// returned; each write, list or search of a scope drops some of its
// expired items (at most MemorySweep a call). Every key of a scope lives
// under one hash tag, so a cluster runs each operation on one node.
// Owners: memoryapi (the /memory routes) and the model backend's memory
// tools.
type Memory interface {
	// PutMemory stores the item (an upsert of Scope, Namespace, Key):
	// CreatedAt is kept from the live item it replaces (now otherwise),
	// UpdatedAt is now. It returns the item as stored, without its
	// embedding.
	PutMemory(ctx context.Context, item MemoryItem, now time.Time) (MemoryItem, error)
	// GetMemory reads one live item, without its embedding.
	GetMemory(ctx context.Context, scope MemoryScope, namespace, key string, now time.Time) (item MemoryItem, found bool, err error)
	// ListMemory returns up to limit live items of a namespace with keys
	// after after, in key order (byte order), without their embeddings.
	ListMemory(ctx context.Context, scope MemoryScope, namespace, after string, limit int, now time.Time) ([]MemoryItem, error)
	// DeleteMemory removes an item; found is false when there was no live
	// item.
	DeleteMemory(ctx context.Context, scope MemoryScope, namespace, key string, now time.Time) (found bool, err error)
	// SearchMemory returns up to q.Limit live items of the scope (of
	// q.Namespace only, when set), the best first, each with its score:
	// with q.Embedding the cosine similarity to the item's embedding
	// (items without one are not found); otherwise how many of the
	// query's tokens the item has (items with none are not found). Ties
	// are in an order the store chooses.
	SearchMemory(ctx context.Context, scope MemoryScope, q MemoryQuery, now time.Time) ([]MemoryHit, error)
}

// MemorySweep is how many expired items one call drops at most.
const MemorySweep = 100

// MemoryScope is whose memory: an agent's (its name) for one user.
type MemoryScope struct {
	Agent string
	User  string
}

// MemoryItem is one item of memory.
type MemoryItem struct {
	Scope     MemoryScope `json:"-"`
	Namespace string      `json:"namespace"`
	Key       string      `json:"key"`
	// Value is any JSON value.
	Value json.RawMessage `json:"value"`
	// Text is what search reads beside the key and the value's strings
	// ("" when the value says it all).
	Text      string    `json:"text,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// ExpiresAt is when the item expires (zero: never).
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Embedding is the item's vector for semantic search (nil: none). It
	// is written by PutMemory and never read back.
	Embedding []float32 `json:"-"`
}

// Live reports whether the item has not expired at now.
func (m MemoryItem) Live(now time.Time) bool {
	return m.ExpiresAt.IsZero() || now.Before(m.ExpiresAt)
}

// MemoryQuery is what SearchMemory looks for.
type MemoryQuery struct {
	// Namespace limits the search to one namespace ("": all).
	Namespace string
	// Text is the query; its tokens (MemoryTokens) are looked for.
	Text string
	// Embedding, when set, ranks by cosine similarity instead.
	Embedding []float32
	// Limit is how many hits at most (1..MaxMemoryHits).
	Limit int
}

// MaxMemoryHits is the largest Limit of a search.
const MaxMemoryHits = 100

// MemoryHit is one item a search found.
type MemoryHit struct {
	Item  MemoryItem `json:"item"`
	Score float64    `json:"score"`
}
