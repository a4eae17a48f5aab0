package memstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnest/harnest/store"
)

// Options configure a Store.
type Options struct {
	// ReceiptTTL is how long a receipt and its event log are kept after
	// their last write; default DefaultReceiptTTL.
	ReceiptTTL time.Duration
	// Now is the store's clock, for expiry (tests may move it); default
	// time.Now.
	Now func() time.Time
}

// DefaultReceiptTTL is how long receipts are kept when Options.ReceiptTTL
// is 0.
const DefaultReceiptTTL = 24 * time.Hour

// expiryEvery is how often the expiry pass runs (see expiry.go).
const expiryEvery = time.Second

// ErrClosed is returned by every operation once the store is closed, as
// a closed Redis client fails every call.
var ErrClosed = errors.New("store: the in-process store is closed; open a new one")

// closedFlag is set once, by Close. Every operation checks it first: one
// atomic load.
type closedFlag struct{ atomic.Bool }

// check returns ErrClosed once the store is closed.
func (f *closedFlag) check() error {
	if f.Load() {
		return ErrClosed
	}
	return nil
}

// Store is harnest's state in this process's memory. It is safe for
// concurrent use; make one with New and Close it when done.
type Store struct {
	// The parts that keep the transports' own schemas; their exported
	// methods are the Store's.
	*tasksSpace
	*threadsSpace
	*requestsSpace
	*relaySpace
	*routerSpace
	*limitsSpace
	*relayToolsSpace
	*outboxSpace
	*pushSpace
	*mcpSessionsSpace
	*schedulesSpace
	*deliveriesSpace
	*evalRunsSpace
	*memorySpace
	*usageSpace

	now        func() time.Time
	receiptTTL time.Duration

	shards  [shardCount]shard // sessions and everything under them (shard.go)
	spaces  spaceTable        // the shards' spaces, by index (spacetable.go)
	users   userIndex         // users' session indexes, asset bytes, wait indexes (users.go)
	runs    runRegistry       // the responses that hold a lease (runs.go)
	alive   livenessTable     // the replicas' liveness records (replicas.go)
	secrets secretTable       // shared secrets (secrets.go)
	hubs    hubTable          // the replicas' hubs (hub.go)

	closed    closedFlag // shared with the parts
	closeOnce sync.Once
	stop      chan struct{} // closed by Close: ends the expiry pass
	done      chan struct{} // closed when the expiry pass has ended
}

// New makes an empty store and starts its expiry pass.
func New(opts Options) *Store {
	s := &Store{now: opts.Now, receiptTTL: opts.ReceiptTTL, stop: make(chan struct{}), done: make(chan struct{})}
	if s.now == nil {
		s.now = time.Now
	}
	if s.receiptTTL <= 0 {
		s.receiptTTL = DefaultReceiptTTL
	}
	for i := range s.shards {
		s.shards[i].spaces = map[uint64]int32{}
	}
	for i := range s.users.shards {
		s.users.shards[i].users = map[string]*userData{}
	}
	s.runs.runs = map[runKey]runEntry{}
	s.alive.until = map[string]time.Time{}
	s.secrets.secrets = map[string][]byte{}
	s.hubs.hubs = map[*Hub]struct{}{}
	s.tasksSpace = newTasksSpace(s.now, s.receiptTTL, &s.closed)
	s.threadsSpace = newThreadsSpace(s.now, s.receiptTTL, &s.closed)
	s.requestsSpace = newRequestsSpace(s.now, s.receiptTTL, &s.closed)
	s.relaySpace = newRelaySpace(s.now, &s.closed)
	s.routerSpace = newRouterSpace(&s.closed, s.receiptTTL)
	s.limitsSpace = newLimitsSpace(&s.closed)
	s.relayToolsSpace = newRelayToolsSpace(s.now, &s.closed)
	s.outboxSpace = newOutboxSpace(s.now, s.receiptTTL, &s.closed)
	s.pushSpace = newPushSpace(s.now, s.receiptTTL, &s.closed)
	s.mcpSessionsSpace = newMCPSessionsSpace(s.now, &s.closed)
	s.schedulesSpace = newSchedulesSpace(&s.closed)
	s.deliveriesSpace = newDeliveriesSpace(s.now, &s.closed)
	s.evalRunsSpace = newEvalRunsSpace(&s.closed)
	s.memorySpace = newMemorySpace(&s.closed)
	s.usageSpace = newUsageSpace(&s.closed)
	go s.expireEvery(expiryEvery)
	return s
}

// Describe says which store this is.
func (s *Store) Describe() string {
	return "in-process store (state lasts as long as the process)"
}

// Ping reports whether the store is open: an open in-process store always
// answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	return ctx.Err()
}

// Close stops the expiry pass, closes every hub and the parts. Every
// operation fails with ErrClosed from then on (what the parts hold is
// dropped; the rest is left to the garbage collector with the Store).
// Closing a closed store does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		close(s.stop)
		<-s.done
		for _, h := range s.hubs.all() {
			_ = h.Close()
		}
		s.tasksSpace.close()
		s.threadsSpace.close()
		s.requestsSpace.close()
		s.relaySpace.close()
		s.relayToolsSpace.close()
		s.outboxSpace.close()
		s.pushSpace.close()
		s.mcpSessionsSpace.close()
	})
	return nil
}

var _ store.Store = (*Store)(nil)

// ErrHubClosed is returned by ListenEvents on a closed hub.
var ErrHubClosed = errors.New("store: the hub is closed")
