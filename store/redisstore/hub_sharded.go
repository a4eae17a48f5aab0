package redisstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// shardedSubscription is, on a Cluster, a replica's subscription to the
// control channels as sharded channels (SSUBSCRIBE, Redis 7 and later):
// one connection to the master of their slot (they share a hash tag),
// which SPUBLISH reaches with an exact count of receivers (see
// SendControl), and which delivers them in the order they were sent.
//
// When resharding moves that slot to another master, Redis ends the
// subscription (it sends SUNSUBSCRIBE). It then subscribes again, on the
// slot's new master, and keeps trying until it is closed. When the master
// dies instead, go-redis dials the slot's master again until one answers,
// and subscribes again itself: each failed dial asks the client to reload
// its slot map (failover.go), so soon after the cluster has promoted a
// replica a dial reaches it. Meanwhile the
// replica misses control messages, and those sent to it alone count as
// lost (SendControl says gone): the same answer as for a replica that
// stopped, never a message taken as delivered that was not.
//
// Its messages arrive on one Go channel, whatever the connection beneath.
type shardedSubscription struct {
	store    *Store
	channels []string
	messages chan *redis.Message // closed once the subscription is closed
	stop     chan struct{}       // closed by close

	mu     sync.Mutex // guards ps and closed
	ps     *redis.PubSub
	closed bool
}

// resubscribePause is the wait before each try to subscribe again; a try
// that fails (the client still has the old slot map, say) waits again.
const resubscribePause = 100 * time.Millisecond

// subscribeSharded subscribes to channels, which must share a hash tag,
// as sharded channels and waits, within the store's timeout, for Redis to
// confirm each.
func (s *Store) subscribeSharded(ctx context.Context, channels ...string) (*shardedSubscription, error) {
	ps, err := s.confirmedSSubscribe(ctx, channels)
	if err != nil {
		return nil, err
	}
	c := &shardedSubscription{
		store: s, channels: channels, ps: ps,
		messages: make(chan *redis.Message), stop: make(chan struct{}),
	}
	go c.forward(ps.ChannelWithSubscriptions())
	return c, nil
}

// confirmedSSubscribe sends SSUBSCRIBE with channels and waits, within the
// store's timeout each, for their confirmations.
func (s *Store) confirmedSSubscribe(ctx context.Context, channels []string) (*redis.PubSub, error) {
	ps := s.rdb.SSubscribe(ctx, channels...)
	for range channels {
		if _, err := ps.ReceiveTimeout(ctx, s.timeout); err != nil {
			ps.Close()
			return nil, fmt.Errorf("store: subscribe to the sharded channels %v: %w", channels, err)
		}
	}
	return ps, nil
}

// forward hands the subscription's messages on, subscribing again whenever
// Redis ends the subscription, until close.
func (c *shardedSubscription) forward(stream <-chan any) {
	defer close(c.messages)
	for stream != nil {
		m, ok := <-stream
		if !ok {
			return // closed by close
		}
		switch m := m.(type) {
		case *redis.Message:
			c.messages <- m
		case *redis.Subscription:
			// The hub never unsubscribes: Redis did. (It ends each
			// channel; the old connection's other endings are dropped
			// with it.)
			if m.Kind == "sunsubscribe" {
				stream = c.resubscribe()
			}
		}
	}
}

// resubscribe replaces the ended subscription with a new one on the slot's
// current master and returns its stream; nil once close was called.
func (c *shardedSubscription) resubscribe() <-chan any {
	if cluster, ok := c.store.rdb.(*redis.ClusterClient); ok {
		cluster.ReloadState(context.Background()) // the slot has moved
	}
	for {
		select {
		case <-c.stop:
			return nil
		case <-time.After(resubscribePause):
		}
		ps, err := c.store.confirmedSSubscribe(context.Background(), c.channels)
		if err != nil {
			continue // MOVED while the slot map reloads, or a node down: try again
		}
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			ps.Close()
			return nil
		}
		old := c.ps
		c.ps = ps
		c.mu.Unlock()
		old.Close()
		return ps.ChannelWithSubscriptions()
	}
}

// close ends the subscription; messages is closed once forward stops.
func (c *shardedSubscription) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	close(c.stop)
	return c.ps.Close()
}
