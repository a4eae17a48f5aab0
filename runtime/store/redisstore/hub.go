package redisstore

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/runtime/store"
)

// Hub is a replica's one Redis pub/sub connection. It carries two things:
// the control channel, where any replica asks the replica that holds a
// response to cancel it or to resume it after an answer; and the event
// notifications of responses that someone on this replica follows. Followers
// share the connection, so an idle follower costs a Go channel, not a Redis
// connection.
type Hub struct {
	ps        *redis.PubSub
	control   string // every replica's
	own       string // this replica's
	onControl func(payload string)

	subMu     sync.Mutex // orders SUBSCRIBE/UNSUBSCRIBE with the listener sets
	mu        sync.Mutex // guards listeners
	listeners map[string]map[chan struct{}]struct{}
	done      chan struct{}
	store     *Store
}

func (s *Store) controlChannel() string { return s.prefix + "control" }

func (s *Store) replicaChannel(replica string) string {
	return s.prefix + "control:" + escapeID(replica)
}

// StartHub subscribes to the control channel of every replica and to this
// replica's own, and dispatches messages until Close. onControl runs for
// every control message, on the hub's goroutine.
func (s *Store) StartHub(ctx context.Context, replica string, onControl func(payload string)) (store.Hub, error) {
	h := &Hub{
		ps:      s.rdb.Subscribe(ctx, s.controlChannel(), s.replicaChannel(replica)),
		control: s.controlChannel(), own: s.replicaChannel(replica), onControl: onControl,
		listeners: map[string]map[chan struct{}]struct{}{}, done: make(chan struct{}), store: s,
	}
	for range 2 { // the two subscription confirmations, each bounded
		if _, err := h.ps.ReceiveTimeout(ctx, s.timeout); err != nil {
			h.ps.Close()
			return nil, err
		}
	}
	go h.dispatch()
	return h, nil
}

func (h *Hub) dispatch() {
	defer close(h.done)
	for msg := range h.ps.Channel() {
		if msg.Channel == h.control || msg.Channel == h.own {
			h.onControl(msg.Payload)
			continue
		}
		h.mu.Lock()
		for ch := range h.listeners[msg.Channel] {
			select {
			case ch <- struct{}{}:
			default: // already signalled; the follower reads everything new
			}
		}
		h.mu.Unlock()
	}
}

// listen returns a channel that is signalled whenever something is
// published on channel, until stop is called.
func (h *Hub) listen(ctx context.Context, channel string) (<-chan struct{}, func(), error) {
	ch := make(chan struct{}, 1)
	h.subMu.Lock()
	defer h.subMu.Unlock()
	h.mu.Lock()
	set := h.listeners[channel]
	first := set == nil
	if first {
		set = map[chan struct{}]struct{}{}
		h.listeners[channel] = set
	}
	set[ch] = struct{}{}
	h.mu.Unlock()
	if first {
		if err := h.ps.Subscribe(ctx, channel); err != nil {
			h.mu.Lock()
			delete(h.listeners, channel)
			h.mu.Unlock()
			return nil, nil, err
		}
	}
	return ch, func() { h.unlisten(channel, ch) }, nil
}

func (h *Hub) unlisten(channel string, ch chan struct{}) {
	h.subMu.Lock()
	defer h.subMu.Unlock()
	h.mu.Lock()
	set := h.listeners[channel]
	delete(set, ch)
	last := len(set) == 0
	if last {
		delete(h.listeners, channel)
	}
	h.mu.Unlock()
	if last {
		_ = h.ps.Unsubscribe(context.Background(), channel)
	}
}

// Close ends the subscription.
func (h *Hub) Close() error {
	err := h.ps.Close()
	<-h.done
	return err
}

// ListenEvents signals whenever new events of the response are logged (or
// its receipt changes), until stop is called.
func (h *Hub) ListenEvents(ctx context.Context, user, session, responseID string) (<-chan struct{}, func(), error) {
	return h.listen(ctx, h.store.eventsChannel(user, session, responseID))
}

// PublishControl sends a control message to every replica.
func (s *Store) PublishControl(ctx context.Context, payload string) error {
	return s.rdb.Publish(ctx, s.controlChannel(), payload).Err()
}

// SendControl sends a control message to one replica. gone is true when
// the store can tell that no such replica listens (it died): single-node
// and Sentinel Redis count a message's receivers exactly; a Cluster counts
// only those on one node, so there gone is always false.
func (s *Store) SendControl(ctx context.Context, replica, payload string) (gone bool, err error) {
	n, err := s.rdb.Publish(ctx, s.replicaChannel(replica), payload).Result()
	if err != nil {
		return false, err
	}
	_, cluster := s.rdb.(*redis.ClusterClient)
	return n == 0 && !cluster, nil
}
