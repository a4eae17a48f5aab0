package memstore

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/harnest/harnest/store"
)

// Hub is one replica's subscription: its control messages (to every
// replica, or to this one) run onControl in order on the hub's own
// goroutine, and followers of a response's events are signalled through it.
// Followers share the hub: an idle follower costs a channel.
type Hub struct {
	store     *Store
	replica   string
	onControl func(payload string)

	mu        sync.Mutex
	queue     []string // control messages not yet dispatched
	closed    bool
	listeners map[responseKey]map[chan struct{}]struct{}

	wake chan struct{} // signalled when queue grows (capacity 1)
	stop chan struct{} // closed by Close
	done chan struct{} // closed when the dispatcher has ended
}

// responseKey names a user's response.
type responseKey struct{ user, session, response string }

// hubTable holds the open hubs of every replica sharing the store.
type hubTable struct {
	mu        sync.RWMutex
	hubs      map[*Hub]struct{}
	listening atomic.Int64 // followers on all hubs: 0 skips the signalling
}

// all returns the open hubs.
func (t *hubTable) all() []*Hub {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]*Hub, 0, len(t.hubs))
	for h := range t.hubs {
		out = append(out, h)
	}
	return out
}

// StartHub opens a replica's hub and dispatches its control messages until
// Close. onControl runs for every control message, on the hub's goroutine.
func (s *Store) StartHub(ctx context.Context, replica string, onControl func(payload string)) (store.Hub, error) {
	h := &Hub{
		store: s, replica: replica, onControl: onControl,
		listeners: map[responseKey]map[chan struct{}]struct{}{},
		wake:      make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	// Checked under the hubs' lock: Close, which sets the flag first, then
	// closes every hub it finds, finds this one or is seen here.
	s.hubs.mu.Lock()
	if err := s.closed.check(); err != nil {
		s.hubs.mu.Unlock()
		return nil, err
	}
	s.hubs.hubs[h] = struct{}{}
	s.hubs.mu.Unlock()
	go h.dispatch()
	return h, nil
}

// dispatch runs onControl for each queued control message, in order,
// until the hub is closed.
func (h *Hub) dispatch() {
	defer close(h.done)
	for {
		select {
		case <-h.stop:
			return
		case <-h.wake:
		}
		h.mu.Lock()
		batch := h.queue
		h.queue = nil
		h.mu.Unlock()
		for _, payload := range batch {
			select {
			case <-h.stop:
				return
			default:
			}
			h.onControl(payload)
		}
	}
}

// deliver queues a control message for the hub's goroutine; false when the
// hub is closed.
func (h *Hub) deliver(payload string) bool {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return false
	}
	h.queue = append(h.queue, payload)
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default: // already woken; it takes the whole queue
	}
	return true
}

// PublishControl sends a control message to every replica's hub.
func (s *Store) PublishControl(ctx context.Context, payload string) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	s.hubs.mu.RLock()
	defer s.hubs.mu.RUnlock()
	for h := range s.hubs.hubs {
		h.deliver(payload)
	}
	return nil
}

// SendControl sends a control message to one replica; gone is true when
// no hub of that replica is open.
func (s *Store) SendControl(ctx context.Context, replica, payload string) (gone bool, err error) {
	if err := s.closed.check(); err != nil {
		return false, err
	}
	s.hubs.mu.RLock()
	defer s.hubs.mu.RUnlock()
	delivered := false
	for h := range s.hubs.hubs {
		if h.replica == replica && h.deliver(payload) {
			delivered = true
		}
	}
	return !delivered, nil
}

// ListenEvents signals whenever new events of the response are logged (or
// a sweeper replaces its receipt), until stop is called or the hub is
// closed.
func (h *Hub) ListenEvents(ctx context.Context, user, session, responseID string) (<-chan struct{}, func(), error) {
	k := responseKey{user, session, responseID}
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil, ErrHubClosed
	}
	set := h.listeners[k]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		h.listeners[k] = set
	}
	set[ch] = struct{}{}
	h.store.hubs.listening.Add(1)
	var once sync.Once
	return ch, func() { once.Do(func() { h.unlisten(k, ch) }) }, nil
}

func (h *Hub) unlisten(k responseKey, ch chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.listeners[k]
	if _, ok := set[ch]; !ok {
		return // the hub was closed
	}
	delete(set, ch)
	if len(set) == 0 {
		delete(h.listeners, k)
	}
	h.store.hubs.listening.Add(-1)
}

// notify signals the followers of a response on every hub.
func (t *hubTable) notify(k responseKey) {
	if t.listening.Load() == 0 {
		return
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	for h := range t.hubs {
		h.mu.Lock()
		for ch := range h.listeners[k] {
			select {
			case ch <- struct{}{}:
			default: // already signalled; the follower reads everything new
			}
		}
		h.mu.Unlock()
	}
}

// Close ends the subscription: control messages not yet dispatched are
// dropped and followers are no longer signalled. It waits for onControl to
// return, so it must not be called from onControl.
func (h *Hub) Close() error {
	h.store.hubs.mu.Lock()
	delete(h.store.hubs.hubs, h)
	h.store.hubs.mu.Unlock()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.queue = nil
	n := 0
	for _, set := range h.listeners {
		n += len(set)
	}
	h.listeners = map[responseKey]map[chan struct{}]struct{}{}
	h.store.hubs.listening.Add(int64(-n))
	h.mu.Unlock()
	close(h.stop)
	<-h.done
	return nil
}
