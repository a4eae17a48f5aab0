package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/harnest/harnest/internal/netguard"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// The outbox dispatcher: every replica runs one. It claims the deliveries
// that are due in the store's outbox (A2A push notifications, completion
// webhooks), whoever enqueued them, and POSTs each through the address
// guard, at most Batch at once; one user's deliveries take at most
// UserShare of those, and one destination's HostShare, so that a receiver
// that is slow or hangs delays nobody else's. A 2xx answer completes a
// delivery; anything else is tried again with backoff until MaxAttempts,
// after which the delivery is dropped (and logged). A replica that dies mid-delivery loses its claim when the lease
// ends, and another replica sends it again: delivery is at least once, in
// order per queue (store.Outbox).

// Store is what the Dispatcher keeps in the store: the outbox, and the
// shared secret webhooks are signed with (runtime.SignWebhook).
type Store interface {
	store.Outbox
	store.Secrets
}

// DispatcherOptions configure a Dispatcher.
type DispatcherOptions struct {
	Store Store
	// Policy is where deliveries may go (netguard): https to public
	// hosts, private or loopback ones only when listed.
	Policy netguard.Policy
	Logger *slog.Logger
	// Poll is how often the outbox is read for due deliveries (default
	// 1 s); an Enqueue on this replica wakes it at once.
	Poll time.Duration
	// Timeout bounds one POST (default 15 s).
	Timeout time.Duration
	// Lease is how long a claim holds a delivery (default Timeout + 15 s).
	Lease time.Duration
	// MaxAttempts is how many tries a delivery gets (default 8).
	MaxAttempts int
	// Backoff is the wait after the attempt-th failed try (default 1 s,
	// doubling, at most 5 min).
	Backoff func(attempt int) time.Duration
	// Batch is the most deliveries in flight at once (default 32).
	Batch int
	// UserShare is the most deliveries of one user in flight at once
	// (default a quarter of Batch), so that a user whose receiver is slow
	// or hangs holds that much of the batch at most and others' are sent
	// meanwhile.
	UserShare int
	// HostShare is the most deliveries to one destination (host and
	// port) in flight at once (default half of Batch): a delivery
	// claimed past it is given back unsent, due again after Poll.
	HostShare int
	// MaxPerUser bounds the deliveries waiting for one user (default
	// 10000); an Enqueue past it fails with runtime.ErrRateLimited.
	MaxPerUser int
	// MaxResponseBytes bounds what is read of a receiver's answer
	// (default 64 KiB).
	MaxResponseBytes int64
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// Signer adds the headers that authenticate a delivery of its kind, such
// as a signature over body made at sending time.
type Signer func(ctx context.Context, d store.Delivery, now time.Time) (map[string]string, error)

// Dispatcher sends the outbox's deliveries. Make one with NewDispatcher,
// register signers with Sign, then Start it; Close stops it.
type Dispatcher struct {
	o       DispatcherOptions
	st      Store
	log     *slog.Logger
	client  *http.Client
	wake    chan struct{}
	signers map[string]Signer

	mu      sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	started bool

	// flights are the deliveries in flight per user and per destination
	// (UserShare, HostShare).
	flights struct {
		sync.Mutex
		users, hosts map[string]int
	}
}

// NewDispatcher makes a dispatcher with the options' defaults filled in.
func NewDispatcher(o DispatcherOptions) *Dispatcher {
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.Lease <= 0 {
		o.Lease = o.Timeout + 15*time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 8
	}
	if o.Backoff == nil {
		o.Backoff = DefaultBackoff
	}
	if o.Batch <= 0 {
		o.Batch = 32
	}
	if o.UserShare <= 0 {
		o.UserShare = max(1, o.Batch/4)
	}
	if o.HostShare <= 0 {
		o.HostShare = max(1, o.Batch/2)
	}
	if o.MaxPerUser <= 0 {
		o.MaxPerUser = 10000
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = 64 << 10
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Dispatcher{o: o, st: o.Store, log: log, wake: make(chan struct{}, 1), signers: map[string]Signer{}}
	d.flights.users, d.flights.hosts = map[string]int{}, map[string]int{}
	d.client = guardedClient(o.Policy, o.Timeout)
	d.Sign(runtime.DeliveryWebhook, func(ctx context.Context, del store.Delivery, now time.Time) (map[string]string, error) {
		return runtime.SignWebhook(ctx, o.Store, del, now)
	})
	return d
}

// DefaultBackoff waits 1 s after the first failed try, doubling after
// each, at most 5 minutes.
func DefaultBackoff(attempt int) time.Duration {
	wait := time.Second
	for i := 1; i < attempt && wait < 5*time.Minute; i++ {
		wait *= 2
	}
	return min(wait, 5*time.Minute)
}

// Sign registers the signer of a kind of delivery; call it before Start.
// A delivery of a kind without a signer is sent with its own headers only.
func (d *Dispatcher) Sign(kind string, s Signer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.signers[kind] = s
}

// CheckURL refuses a URL the dispatcher could never deliver to (a scheme,
// host or address the guard refuses), so that callers refuse it at once.
func (d *Dispatcher) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("must be an absolute https URL")
	}
	if u.User != nil {
		return errors.New("must not hold credentials")
	}
	if err := d.o.Policy.CheckURL(u); err != nil {
		var refused *netguard.RefusedError
		if errors.As(err, &refused) {
			return errors.New(refused.Reason)
		}
		return err
	}
	return nil
}

// Enqueue stores a delivery in the outbox (due at once) and wakes this
// replica's dispatcher. runtime.ErrRateLimited: the user's outbox is full.
func (d *Dispatcher) Enqueue(ctx context.Context, del store.Delivery) error {
	_, err := d.st.EnqueueDelivery(ctx, del, d.o.MaxPerUser, d.o.Now())
	if errors.Is(err, store.ErrOutboxFull) {
		return runtime.Errorf(runtime.ErrRateLimited, "outbox_full", "Too many notifications are waiting to be delivered for this user; retry later")
	}
	if err != nil {
		return fmt.Errorf("outbox: enqueue delivery: %w", err)
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
	return nil
}

// Start runs the dispatcher until Close.
func (d *Dispatcher) Start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.started {
		return
	}
	d.started = true
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel, d.done = cancel, make(chan struct{})
	go d.run(ctx)
}

// Close stops claiming and cancels the deliveries in flight (their claims
// lapse, and another replica sends them again); it waits until they end.
func (d *Dispatcher) Close() {
	d.mu.Lock()
	cancel, done := d.cancel, d.done
	d.cancel = nil
	d.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// run polls the outbox and sends what it claims, at most Batch at once,
// each user's and each destination's within their share.
func (d *Dispatcher) run(ctx context.Context) {
	defer close(d.done)
	var inFlight sync.WaitGroup
	defer inFlight.Wait()
	slots := make(chan struct{}, d.o.Batch)
	ticker := time.NewTicker(d.o.Poll)
	defer ticker.Stop()
	for {
		if free := d.o.Batch - len(slots); free > 0 {
			now := d.o.Now()
			share := store.ClaimShare{PerUser: d.o.UserShare, Held: d.heldUsers()}
			claimed, err := d.st.ClaimDeliveries(ctx, now, d.o.Lease, free, share)
			if err != nil && ctx.Err() == nil {
				d.log.Warn("outbox: cannot claim deliveries", "err", err)
			}
			for _, del := range claimed {
				host := destination(del.URL)
				if !d.takeFlight(del.User, host) {
					// Its destination (or user) has its share in flight:
					// give it back, so that it holds no place meanwhile.
					d.release(ctx, del, now.Add(d.o.Poll))
					continue
				}
				slots <- struct{}{}
				inFlight.Add(1)
				go func() {
					defer func() { d.endFlight(del.User, host); <-slots; inFlight.Done() }()
					d.deliver(ctx, del)
				}()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-d.wake:
		}
	}
}

// destination is where a delivery goes, as HostShare counts it: its URL's
// host and port.
func destination(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.ToLower(u.Host)
}

// heldUsers copies the deliveries in flight per user.
func (d *Dispatcher) heldUsers() map[string]int {
	d.flights.Lock()
	defer d.flights.Unlock()
	return maps.Clone(d.flights.users)
}

// takeFlight counts a delivery in flight, unless its user or destination
// has its share in flight already.
func (d *Dispatcher) takeFlight(user, host string) bool {
	d.flights.Lock()
	defer d.flights.Unlock()
	if d.flights.users[user] >= d.o.UserShare || d.flights.hosts[host] >= d.o.HostShare {
		return false
	}
	d.flights.users[user]++
	d.flights.hosts[host]++
	return true
}

// endFlight counts a delivery out of flight; its user and destination may
// have another one sent at once.
func (d *Dispatcher) endFlight(user, host string) {
	d.flights.Lock()
	if d.flights.users[user]--; d.flights.users[user] <= 0 {
		delete(d.flights.users, user)
	}
	if d.flights.hosts[host]--; d.flights.hosts[host] <= 0 {
		delete(d.flights.hosts, host)
	}
	d.flights.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// release gives a claimed delivery back unsent, due at at (its claim
// lapses otherwise, later).
func (d *Dispatcher) release(ctx context.Context, del store.Delivery, at time.Time) {
	if ctx.Err() != nil {
		return // closing: the claim lapses, and another replica sends it
	}
	if _, err := d.st.ReleaseDelivery(ctx, del, at); err != nil {
		d.log.Warn("outbox: cannot give back a delivery (its claim will lapse)", "deliveryId", del.ID, "err", err)
	}
}
