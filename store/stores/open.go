// Package stores opens the store an agent's config names: a real Redis
// (redisstore) when a URL is given, the in-process store (memstore)
// otherwise. It is the one place that picks an implementation; the
// composition root and tests open stores through it.
package stores

import (
	"context"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
	"github.com/harnest/harnest/store/redisstore"
)

// Options choose and configure a store.
type Options struct {
	// URL of a real Redis (redis://, rediss://, unix://; Sentinel and
	// Cluster forms as redisstore describes). Empty: the in-process store.
	URL string
	// KeyPrefix starts every key of a Redis store; default "harnest:".
	KeyPrefix string
	// ReceiptTTL is how long a receipt and what lasts with it (its event
	// log, A2A tasks, AG-UI thread records) are kept; default 24 h.
	ReceiptTTL time.Duration
	// Timeout bounds every call to a real Redis.
	Timeout time.Duration
	// Observer, when set, is told of every command a Redis store sends,
	// from the first (the in-process store sends none).
	Observer store.CommandObserver
}

// Open opens the store the options name and checks that it answers.
func Open(ctx context.Context, o Options) (store.Store, error) {
	if o.URL == "" {
		return memstore.New(memstore.Options{ReceiptTTL: o.ReceiptTTL}), nil
	}
	return redisstore.Open(ctx, redisstore.Options{URL: o.URL, KeyPrefix: o.KeyPrefix, ReceiptTTL: o.ReceiptTTL, Timeout: o.Timeout,
		Observer: o.Observer})
}
