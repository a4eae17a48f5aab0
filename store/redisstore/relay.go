package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// The relay's keys all share the hash tag {relay}, so scripts may touch
// several (also on Redis Cluster). An owner's state lives under
// o:<owner>:; only the two entry points a secret opens are outside it, and
// each names its owner:
//
//	{relay}:code:<code hash>        HASH    owner, name, kind, expires
//	{relay}:session:<token hash>    HASH    owner, pid
//	{relay}:o:<owner>:p:<pid>       HASH    the participant (and its token's hash)
//	{relay}:o:<owner>:parts         ZSET    participant IDs by expiry
//	{relay}:o:<owner>:inbox:<pid>   ZSET    pending item IDs by deadline
//	{relay}:o:<owner>:item:<rid>    HASH    one item and its reply
//	{relay}:o:<owner>:feed          STREAM  notices and stage items (field e: JSON)
//	{relay}:o:<owner>:say:<pid>     STRING  the time of the last say
//	{relay}:o:<owner>:rl:<name>:<subject>:<window>  the owner's rate buckets
//	{relay}:rl:<name>:<subject>:<window>            the server's buckets
//
// Times are Unix milliseconds. Wake-ups go over one pub/sub channel,
// <prefix>relay:wake, whose payloads name what changed (see relayWake*).

func (s *Store) relayPrefix() string { return s.prefix + "{relay}:" }

// relayOwnerPrefix is where one owner's relay state lives.
func (s *Store) relayOwnerPrefix(owner string) string {
	return s.relayPrefix() + "o:" + escapeID(owner) + ":"
}

func (s *Store) relayCodeKey(hash string) string { return s.relayPrefix() + "code:" + escapeID(hash) }
func (s *Store) relaySessionKey(hash string) string {
	return s.relayPrefix() + "session:" + escapeID(hash)
}
func (s *Store) relayPartKey(owner, pid string) string {
	return s.relayOwnerPrefix(owner) + "p:" + escapeID(pid)
}
func (s *Store) relayPartsKey(owner string) string { return s.relayOwnerPrefix(owner) + "parts" }
func (s *Store) relayInboxKey(owner, pid string) string {
	return s.relayOwnerPrefix(owner) + "inbox:" + escapeID(pid)
}
func (s *Store) relayItemKey(owner, rid string) string {
	return s.relayOwnerPrefix(owner) + "item:" + escapeID(rid)
}
func (s *Store) relayFeedKey(owner string) string { return s.relayOwnerPrefix(owner) + "feed" }
func (s *Store) relaySayKey(owner, pid string) string {
	return s.relayOwnerPrefix(owner) + "say:" + escapeID(pid)
}
func (s *Store) relayBucketKey(owner, name, subject string, window int64) string {
	scope := s.relayPrefix()
	if owner != "" {
		scope = s.relayOwnerPrefix(owner)
	}
	return scope + "rl:" + escapeID(name) + ":" + escapeID(subject) + ":" + strconv.FormatInt(window, 10)
}

// relayWakeChannel carries every relay wake-up to every replica.
func (s *Store) relayWakeChannel() string { return s.prefix + "relay:wake" }

// The payloads of the wake channel, as replicas before the store owned the
// relay's schema publish them (so that both wake each other during a
// rolling upgrade). They name a participant or item without its owner: a
// wake-up only makes a listener read again, and every read is the owner's.
func relayWakeInbox(owner, pid string) string { return "p:" + pid }
func relayWakeItem(owner, rid string) string  { return "r:" + rid }
func relayWakeFeed(owner string) string       { return "feed:" + owner }

func relayMS(t time.Time) int64 { return t.UnixMilli() }

func relayTime(ms string) time.Time {
	n, _ := strconv.ParseInt(ms, 10, 64)
	return time.UnixMilli(n).UTC()
}

// relayParts is the relay's state of one Store that is not in Redis: the
// one subscription to the wake channel, started by the first listener, and
// the local listeners it wakes. However many polls wait, the store holds
// one pub/sub connection for them; each waiting poll costs a channel.
type relayParts struct {
	mu        sync.Mutex // guards everything below
	ps        *redis.PubSub
	done      chan struct{} // closed when the dispatch goroutine ends
	closed    bool
	listeners map[string]map[chan struct{}]struct{} // by wake payload
}

// listenRelay returns a channel signalled whenever wake is published on
// the wake channel (or the subscription was re-established), until stop.
func (s *Store) listenRelay(ctx context.Context, wake string) (<-chan struct{}, func(), error) {
	r := &s.relay
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, nil, fmt.Errorf("store: relay listener: the store is closed")
	}
	if r.ps == nil {
		if err := s.subscribeRelay(ctx); err != nil {
			return nil, nil, err
		}
	}
	ch := make(chan struct{}, 1)
	set := r.listeners[wake]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		r.listeners[wake] = set
	}
	set[ch] = struct{}{}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			delete(r.listeners[wake], ch)
			if len(r.listeners[wake]) == 0 {
				delete(r.listeners, wake)
			}
		})
	}
	return ch, stop, nil
}

// subscribeRelay subscribes to the wake channel and waits for Redis to
// confirm it, so that anything published after a listener was added wakes
// it. Called with s.relay.mu held.
func (s *Store) subscribeRelay(ctx context.Context) error {
	r := &s.relay
	ps := s.rdb.Subscribe(ctx, s.relayWakeChannel())
	if _, err := ps.ReceiveTimeout(ctx, s.timeout); err != nil {
		ps.Close()
		return fmt.Errorf("store: subscribe to the relay's wake-ups: %w", err)
	}
	r.ps, r.done = ps, make(chan struct{})
	if r.listeners == nil {
		r.listeners = map[string]map[chan struct{}]struct{}{}
	}
	go s.dispatchRelay(ps, r.done)
	return nil
}

// dispatchRelay wakes the listeners of every payload that arrives. go-redis
// reconnects a broken subscription by itself; what was published meanwhile
// is lost, so a renewed subscription wakes every listener to read again.
func (s *Store) dispatchRelay(ps *redis.PubSub, done chan struct{}) {
	defer close(done)
	r := &s.relay
	for msg := range ps.ChannelWithSubscriptions() {
		r.mu.Lock()
		switch m := msg.(type) {
		case *redis.Message:
			signalAll(r.listeners[m.Payload])
		case *redis.Subscription:
			if m.Kind == "subscribe" { // a reconnection: the first was received in subscribeRelay
				for _, set := range r.listeners {
					signalAll(set)
				}
			}
		}
		r.mu.Unlock()
	}
}

// signalAll signals every channel of set without blocking: a channel that
// holds a signal already needs no second one.
func signalAll(set map[chan struct{}]struct{}) {
	for ch := range set {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// close ends the subscription (Store.Close).
func (r *relayParts) close() {
	r.mu.Lock()
	r.closed = true
	ps, done := r.ps, r.done
	r.mu.Unlock()
	if ps != nil {
		ps.Close()
		<-done
	}
}

// ListenRelayInbox signals whenever an item is enqueued for the
// participant or it is paused, resumed or disconnected.
func (s *Store) ListenRelayInbox(ctx context.Context, owner, participant string) (<-chan struct{}, func(), error) {
	return s.listenRelay(ctx, relayWakeInbox(owner, participant))
}

// ListenRelayItem signals whenever the item is answered or cancelled.
func (s *Store) ListenRelayItem(ctx context.Context, owner, id string) (<-chan struct{}, func(), error) {
	return s.listenRelay(ctx, relayWakeItem(owner, id))
}

// ListenRelayFeed signals whenever an entry is appended to owner's feed.
func (s *Store) ListenRelayFeed(ctx context.Context, owner string) (<-chan struct{}, func(), error) {
	return s.listenRelay(ctx, relayWakeFeed(owner))
}
