package redisstore

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// Options configure a Store.
type Options struct {
	// URL of a real Redis: redis://, rediss:// or unix://. A query with
	// master_name=... means Sentinel; extra addr=host:port parameters mean
	// Cluster (Redis 7 or later: see the package doc for what it gets).
	// Empty starts an embedded miniredis, for tests (the zero-setup
	// default store is memstore).
	URL string
	// KeyPrefix starts every key; default "harnest:".
	KeyPrefix string
	// ReceiptTTL is how long a receipt and its event log are kept.
	ReceiptTTL time.Duration
	// Timeout bounds every call to a real Redis: dial, read, write and the
	// wait for a pooled connection (default DefaultTimeout). A value that
	// the URL sets itself (dial_timeout=, read_timeout=, write_timeout=,
	// pool_timeout=) wins for that one bound; see newClient.
	Timeout time.Duration
	// Hooks observe every command and pipeline sent to Redis (tests count
	// round trips with one).
	Hooks []redis.Hook
	// Observer, when set, is told of every command the store sends (see
	// ObserveCommands), from the first one on.
	Observer store.CommandObserver
}

// DefaultTimeout bounds a call to a real Redis when Options.Timeout is 0.
const DefaultTimeout = 2 * time.Second

// Store is harnest's state in Redis.
type Store struct {
	rdb        redis.UniversalClient
	prefix     string
	receiptTTL time.Duration
	timeout    time.Duration // bounds Ping (see ping.go)
	embedded   *miniredis.Miniredis
	clustered  bool // a Redis Cluster: a transaction keeps to one slot (see cluster.go)
	describe   string
	relay      relayParts     // relay.go
	runs       string         // the run registry's key (runs.go), made once
	commits    roundTripGroup // new sessions' commits sent together (round_trips.go)
	scripts    roundTripGroup // the turns' scripts sent together (scripts.go)
}

// Open connects to Redis, or starts an embedded miniredis (for tests) when
// opts.URL is empty, and checks that the server answers and loads the
// store's scripts.
func Open(ctx context.Context, opts Options) (*Store, error) {
	s := &Store{prefix: opts.KeyPrefix, receiptTTL: opts.ReceiptTTL, timeout: opts.Timeout, commits: roundTripGroup{tx: true}}
	if s.prefix == "" {
		s.prefix = "harnest:"
	}
	s.runs = s.prefix + "{runs}:active"
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
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
		s.describe = "embedded miniredis for tests (state lasts as long as the process)"
	} else {
		rdb, err := newClient(opts.URL, s.timeout)
		if err != nil {
			return nil, err
		}
		s.rdb = rdb
		_, s.clustered = rdb.(*redis.ClusterClient)
		s.describe = "Redis at " + redactURL(opts.URL)
	}
	for _, h := range opts.Hooks {
		s.rdb.AddHook(h)
	}
	s.ObserveCommands(opts.Observer)
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

// newClient builds a single-node, Sentinel or Cluster client from a URL,
// with every call bounded by timeout.
//
// A Redis that accepts connections but does not answer (stopped, swapping,
// behind a dead link) must cost a caller one bounded wait and then a clear
// error, never a hang. So, for every kind of client:
//
//   - DialTimeout, ReadTimeout, WriteTimeout and PoolTimeout are timeout:
//     each socket operation and the wait for a pooled connection end by
//     then. A bound the URL sets itself (dial_timeout=, read_timeout=,
//     write_timeout=, pool_timeout=) wins for that bound only; the others
//     still take timeout.
//   - ContextTimeoutEnabled: a caller's context deadline also bounds a
//     call, when it comes first (context_timeout_enabled= in a Sentinel URL
//     wins).
//   - No command retries (MaxRetries -1, and MaxRedirects -1 for Cluster,
//     where go-redis counts retries after network errors as redirects).
//     go-redis retries a timed-out or broken call 3 times with backoff by
//     default, which turned a 2-3 s timeout into waits of up to 27 s. And a
//     retry is not safe here: a command that timed out may still run when
//     Redis wakes up, and the store's MULTI/EXEC pipelines and Lua scripts
//     (append events, push transcript messages, take a lease) are not
//     idempotent, so sending them again could apply them twice. A failed
//     call becomes a 503 store_unavailable and the caller retries the whole
//     request, which is safe. (A Cluster call that meets MOVED or ASK during
//     resharding, or a master that died, fails the same way while the
//     client reloads its slot map: see followFailovers.) Stale pooled
//     connections do not need retries: go-redis checks an idle connection
//     before it reuses one. max_retries= and max_redirects= in the URL win.
//   - One dial attempt (DialerRetries 1; dialer_retries= wins where go-redis
//     parses it, in Sentinel and Cluster URLs): go-redis dials 5 times by
//     default, each attempt with the full DialTimeout, so an address that
//     drops packets would cost 5 timeouts. The next call dials again.
//
// The embedded store keeps no socket timeouts (see Open and memConn): it
// runs in this process and always answers.
func newClient(raw string, timeout time.Duration) (redis.UniversalClient, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("store: invalid Redis URL: %w", err)
	}
	q := u.Query()
	switch {
	case q.Has("master_name"):
		o, err := parseBounded(raw, "Sentinel", redis.ParseFailoverURL, failoverBounds, q, timeout)
		if err != nil {
			return nil, err
		}
		return redis.NewFailoverClient(o), nil
	case q.Has("addr"):
		o, err := parseBounded(raw, "Cluster", redis.ParseClusterURL, clusterBounds, q, timeout)
		if err != nil {
			return nil, err
		}
		if !q.Has("max_redirects") {
			o.MaxRedirects = -1
		}
		cluster := redis.NewClusterClient(o)
		followFailovers(cluster)
		return cluster, nil
	default:
		o, err := parseBounded(raw, "Redis", redis.ParseURL, nodeBounds, q, timeout)
		if err != nil {
			return nil, err
		}
		return redis.NewClient(o), nil
	}
}

// parseBounded parses raw into one kind of go-redis options (kind names
// it in the error) and sets the bounds newClient describes on them, which
// bounds points at.
func parseBounded[O any](raw, kind string, parse func(string) (*O, error), bounds func(*O) boundFields, q url.Values, timeout time.Duration) (*O, error) {
	o, err := parse(raw)
	if err != nil {
		return nil, fmt.Errorf("store: invalid %s URL: %w", kind, err)
	}
	setBounds(q, timeout, bounds(o))
	return o, nil
}

// boundFields point at the time and retry bounds of one kind of go-redis
// options (single-node, Sentinel and Cluster options have the same fields
// but are different types).
type boundFields struct {
	dial, read, write, pool *time.Duration
	retries, dialerRetries  *int
	contextTimeout          *bool
}

// nodeBounds, failoverBounds and clusterBounds are the boundFields of the
// single-node, Sentinel and Cluster options.
func nodeBounds(o *redis.Options) boundFields {
	return boundFields{dial: &o.DialTimeout, read: &o.ReadTimeout, write: &o.WriteTimeout, pool: &o.PoolTimeout,
		retries: &o.MaxRetries, dialerRetries: &o.DialerRetries, contextTimeout: &o.ContextTimeoutEnabled}
}

func failoverBounds(o *redis.FailoverOptions) boundFields {
	return boundFields{dial: &o.DialTimeout, read: &o.ReadTimeout, write: &o.WriteTimeout, pool: &o.PoolTimeout,
		retries: &o.MaxRetries, dialerRetries: &o.DialerRetries, contextTimeout: &o.ContextTimeoutEnabled}
}

func clusterBounds(o *redis.ClusterOptions) boundFields {
	return boundFields{dial: &o.DialTimeout, read: &o.ReadTimeout, write: &o.WriteTimeout, pool: &o.PoolTimeout,
		retries: &o.MaxRetries, dialerRetries: &o.DialerRetries, contextTimeout: &o.ContextTimeoutEnabled}
}

// setBounds sets the bounds newClient describes, except those that the URL
// query q sets itself: go-redis has already parsed those into the options.
func setBounds(q url.Values, timeout time.Duration, f boundFields) {
	for key, d := range map[string]*time.Duration{
		"dial_timeout": f.dial, "read_timeout": f.read, "write_timeout": f.write, "pool_timeout": f.pool,
	} {
		if !q.Has(key) {
			*d = timeout
		}
	}
	if !q.Has("max_retries") {
		*f.retries = -1 // go-redis: -1 disables retries (0 means its default, 3)
	}
	if !q.Has("dialer_retries") {
		*f.dialerRetries = 1 // one attempt (0 means its default, 5)
	}
	if !q.Has("context_timeout_enabled") {
		*f.contextTimeout = true
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

// Embedded reports whether the store runs on an embedded miniredis.
func (s *Store) Embedded() bool { return s.embedded != nil }

// Client is the underlying Redis client, for packages that add their own
// keys under the same prefix.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// Close releases the connection and stops the embedded server.
func (s *Store) Close() error {
	s.relay.close()
	err := s.rdb.Close()
	if s.embedded != nil {
		s.embedded.Close()
	}
	return err
}

var _ store.Store = (*Store)(nil)
