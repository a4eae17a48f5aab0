package store

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// Hub is a replica's one Redis pub/sub connection. It carries two things:
// the control channel, where any replica asks the replica that holds a
// response to cancel it or to resume it after an answer; and the event
// notifications of responses that someone on this replica follows. Followers
// share the connection, so an idle follower costs a Go channel, not a Redis
// connection.
type Hub struct {
	ps        *redis.PubSub
	control   string
	onControl func(payload string)

	subMu     sync.Mutex // orders SUBSCRIBE/UNSUBSCRIBE with the listener sets
	mu        sync.Mutex // guards listeners
	listeners map[string]map[chan struct{}]struct{}
	done      chan struct{}
}

func (s *Store) controlChannel() string { return s.prefix + "control" }

// StartHub subscribes to the control channel and dispatches messages until
// Close. onControl runs for every control message, on the hub's goroutine.
func (s *Store) StartHub(ctx context.Context, onControl func(payload string)) (*Hub, error) {
	h := &Hub{
		ps: s.rdb.Subscribe(ctx, s.controlChannel()), control: s.controlChannel(), onControl: onControl,
		listeners: map[string]map[chan struct{}]struct{}{}, done: make(chan struct{}),
	}
	if _, err := h.ps.Receive(ctx); err != nil { // the subscription confirmation
		h.ps.Close()
		return nil, err
	}
	go h.dispatch()
	return h, nil
}

func (h *Hub) dispatch() {
	defer close(h.done)
	for msg := range h.ps.Channel() {
		if msg.Channel == h.control {
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
func (s *Store) ListenEvents(ctx context.Context, h *Hub, user, session, responseID string) (<-chan struct{}, func(), error) {
	return h.listen(ctx, s.eventsChannel(user, session, responseID))
}

// PublishControl sends a control message to every replica.
func (s *Store) PublishControl(ctx context.Context, payload string) error {
	return s.rdb.Publish(ctx, s.controlChannel(), payload).Err()
}
