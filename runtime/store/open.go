package store

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// Options configure a Store.
type Options struct {
	// URL of a real Redis: redis://, rediss:// or unix://. A query with
	// master_name=... means Sentinel; extra addr=host:port parameters mean
	// Cluster. Empty starts the embedded store.
	URL string
	// KeyPrefix starts every key; default "harnest:".
	KeyPrefix string
	// ReceiptTTL is how long a receipt and its event log are kept.
	ReceiptTTL time.Duration
	// Timeout bounds every call to a real Redis: dial, read, write and the
	// wait for a pooled connection (default 2 s).
	Timeout time.Duration
	// Hooks observe every command and pipeline sent to Redis (tests count
	// round trips with one).
	Hooks []redis.Hook
}

// Store is harnest's state in Redis.
type Store struct {
	rdb        redis.UniversalClient
	prefix     string
	receiptTTL time.Duration
	embedded   *miniredis.Miniredis
	describe   string
}

// Open connects to Redis, or starts the embedded store when opts.URL is
// empty, and checks that the server answers.
func Open(ctx context.Context, opts Options) (*Store, error) {
	s := &Store{prefix: opts.KeyPrefix, receiptTTL: opts.ReceiptTTL}
	if s.prefix == "" {
		s.prefix = "harnest:"
	}
	if s.receiptTTL <= 0 {
		s.receiptTTL = 24 * time.Hour
	}
	if opts.URL == "" {
		srv, err := startEmbedded()
		if err != nil {
			return nil, err
		}
		s.embedded = srv
		s.rdb = redis.NewClient(&redis.Options{
			Dialer: func(context.Context, string, string) (net.Conn, error) {
				client, server := memPipe()
				srv.Server().ServeConn(server)
				return client, nil
			},
			// In-process: no socket timeouts to apply (see memConn).
			ReadTimeout:  -1,
			WriteTimeout: -1,
			PoolSize:     64,
		})
		s.describe = "embedded in-process Redis (state lasts as long as the process)"
	} else {
		rdb, err := newClient(opts.URL)
		if err != nil {
			return nil, err
		}
		s.rdb = rdb
		s.describe = "Redis at " + redactURL(opts.URL)
	}
	for _, h := range opts.Hooks {
		s.rdb.AddHook(h)
	}
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: cannot reach %s: %w (is redis-server running?)", s.describe, err)
	}
	if err := s.loadScripts(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: cannot load scripts into %s: %w", s.describe, err)
	}
	return s, nil
}

// startEmbedded starts miniredis without a listener: connections are
// served from memory only.
func startEmbedded() (*miniredis.Miniredis, error) {
	m := miniredis.NewMiniRedis()
	c, err := m.Dial() // the first dial starts its server without a socket
	if err != nil {
		return nil, fmt.Errorf("store: start the embedded Redis: %w", err)
	}
	c.Close()
	return m, nil
}

// newClient builds a single-node, Sentinel or Cluster client from a URL.
func newClient(raw string) (redis.UniversalClient, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("store: invalid Redis URL: %w", err)
	}
	q := u.Query()
	switch {
	case q.Has("master_name"):
		o, err := redis.ParseFailoverURL(raw)
		if err != nil {
			return nil, fmt.Errorf("store: invalid Sentinel URL: %w", err)
		}
		return redis.NewFailoverClient(o), nil
	case q.Has("addr"):
		o, err := redis.ParseClusterURL(raw)
		if err != nil {
			return nil, fmt.Errorf("store: invalid Cluster URL: %w", err)
		}
		return redis.NewClusterClient(o), nil
	default:
		o, err := redis.ParseURL(raw)
		if err != nil {
			return nil, fmt.Errorf("store: invalid Redis URL: %w", err)
		}
		return redis.NewClient(o), nil
	}
}

// redactURL returns the URL without credentials or query, for logs.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	if u.Scheme == "unix" {
		return "unix:" + u.Path
	}
	host := u.Host
	if host == "" {
		host = "localhost:6379"
	}
	return u.Scheme + "://" + host + strings.TrimSuffix(u.Path, "/")
}

// Describe says which store this is, without credentials.
func (s *Store) Describe() string { return s.describe }

// Embedded reports whether the store is the in-process one.
func (s *Store) Embedded() bool { return s.embedded != nil }

// Client is the underlying Redis client, for packages that add their own
// keys under the same prefix.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// Close releases the connection and stops the embedded server.
func (s *Store) Close() error {
	err := s.rdb.Close()
	if s.embedded != nil {
		s.embedded.Close()
	}
	return err
}
