package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// Hub is a replica's Redis pub/sub connection. It carries two things:
// the control channel, where any replica asks the replica that holds a
// response to cancel it or to resume it after an answer; and the event
// notifications of responses that someone on this replica follows. Followers
// share the connection, so an idle follower costs a Go channel, not a Redis
// connection.
//
// On a Cluster the control channels are sharded channels, on a second
// connection (see shardedSubscription): a plain PUBLISH reaches every node
// and counts only one node's receivers, so it cannot tell that a replica
// is gone (see SendControl). Event notifications stay on plain channels,
// which a Cluster delivers on every node.
type Hub struct {
	ps        *redis.PubSub        // event channels, and the control channels unless sharded
	sharded   *shardedSubscription // the control channels, on a Cluster; nil elsewhere
	control   string               // every replica's
	own       string               // this replica's
	onControl func(payload string)

	subMu     sync.Mutex // orders SUBSCRIBE/UNSUBSCRIBE with the listener sets
	mu        sync.Mutex // guards listeners
	listeners map[string]map[chan struct{}]struct{}
	done      chan struct{}
	store     *Store
}

// controlChannel is every replica's control channel. On a Cluster it and
// every replica's channel share a hash tag: one connection, to the master
// of their slot, carries both of a replica's channels, so their messages
// arrive in the order they were sent.
func (s *Store) controlChannel() string {
	if s.clustered {
		return s.prefix + "{control}"
	}
	return s.prefix + "control"
}

// replicaChannel is one replica's control channel.
func (s *Store) replicaChannel(replica string) string {
	return s.controlChannel() + ":" + escapeID(replica)
}

// StartHub subscribes to the control channel of every replica and to this
// replica's own, and dispatches messages until Close. onControl runs for
// every control message, on the hub's goroutine.
func (s *Store) StartHub(ctx context.Context, replica string, onControl func(payload string)) (store.Hub, error) {
	h := &Hub{
		control: s.controlChannel(), own: s.replicaChannel(replica), onControl: onControl,
		listeners: map[string]map[chan struct{}]struct{}{}, done: make(chan struct{}), store: s,
	}
	if s.clustered {
		sharded, err := s.subscribeSharded(ctx, h.control, h.own)
		if err != nil {
			return nil, err
		}
		h.sharded = sharded
		h.ps = s.rdb.Subscribe(ctx) // for event channels; it connects when it first subscribes
		go h.dispatch()
		return h, nil
	}
	h.ps = s.rdb.Subscribe(ctx, h.control, h.own)
	for range 2 { // the two subscription confirmations, each bounded
		if _, err := h.ps.ReceiveTimeout(ctx, s.timeout); err != nil {
			h.ps.Close()
			return nil, fmt.Errorf("store: subscribe to the control channels: %w", err)
		}
	}
	go h.dispatch()
	return h, nil
}

// dispatch hands every message to onControl or to the listeners of its
// channel, until the subscriptions are closed.
func (h *Hub) dispatch() {
	defer close(h.done)
	plain := h.ps.Channel()
	var sharded <-chan *redis.Message // nil (never ready) unless on a Cluster
	if h.sharded != nil {
		sharded = h.sharded.messages
	}
	for plain != nil || sharded != nil {
		var msg *redis.Message
		var ok bool
		select {
		case msg, ok = <-plain:
			if !ok {
				plain = nil
				continue
			}
		case msg, ok = <-sharded:
			if !ok {
				sharded = nil
				continue
			}
		}
		h.deliver(msg)
	}
}

// deliver hands one message to onControl or to its channel's listeners.
func (h *Hub) deliver(msg *redis.Message) {
	if msg.Channel == h.control || msg.Channel == h.own {
		h.onControl(msg.Payload)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.listeners[msg.Channel] {
		select {
		case ch <- struct{}{}:
		default: // already signalled; the follower reads everything new
		}
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

// Close ends the subscriptions.
func (h *Hub) Close() error {
	err := h.ps.Close()
	if h.sharded != nil {
		err = errors.Join(err, h.sharded.close())
	}
	<-h.done
	return err
}

// ListenEvents signals whenever new events of the response are logged (or
// its receipt changes), until stop is called.
func (h *Hub) ListenEvents(ctx context.Context, user, session, responseID string) (<-chan struct{}, func(), error) {
	return h.listen(ctx, h.store.eventsChannel(user, session, responseID))
}

// PublishControl sends a control message to every replica (on a Cluster
// with SPUBLISH: every replica subscribes to the channel on its slot's
// master).
func (s *Store) PublishControl(ctx context.Context, payload string) error {
	return s.publishControl(ctx, s.controlChannel(), payload).Err()
}

// publishControl publishes on a control channel: SPUBLISH on a Cluster
// (see Hub), PUBLISH elsewhere.
func (s *Store) publishControl(ctx context.Context, channel, payload string) *redis.IntCmd {
	if s.clustered {
		return s.rdb.SPublish(ctx, channel, payload)
	}
	return s.rdb.Publish(ctx, channel, payload)
}

// SendControl sends a control message to one replica. gone is true when
// no such replica listens (it died): single-node and Sentinel Redis count
// a PUBLISH's receivers exactly, and so does a Cluster an SPUBLISH's (see
// Hub).
func (s *Store) SendControl(ctx context.Context, replica, payload string) (gone bool, err error) {
	n, err := s.publishControl(ctx, s.replicaChannel(replica), payload).Result()
	if err != nil {
		return false, err
	}
	return n == 0, nil
}
