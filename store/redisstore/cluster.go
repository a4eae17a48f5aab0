package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// On a Redis Cluster a transaction (MULTI/EXEC or a script) may only touch
// keys of one slot, or Redis refuses it with CROSSSLOT. A turn's
// transactions touch one session ({s:<user>:<session>}), but a turn also
// keeps bookkeeping under other hash tags: the run registry ({runs}), the
// user's session index and wait index ({u:<user>}).
//
// So the bookkeeping is a step of its own (type bookkeeping), written
// beside the session's transaction:
//
//   - On a single node or Sentinel, one server holds every key and slots
//     do not matter: the step goes in the transaction itself, so it is
//     atomic with it and costs no round trip. A transaction queues it with
//     queueBookkeeping; the turn's scripts (begin.go, commit.go) are given
//     the bookkeeping keys and write them themselves.
//   - On a Cluster, sendBookkeeping sends it as a pipeline of its own,
//     before or after the transaction. Each caller orders the two so that
//     a crash between them leaves nothing a reader would trust wrongly
//     (its comments say how), and readers tolerate the leftovers: an index
//     entry whose session or wait is gone reads as nothing, a registered
//     run whose receipt is missing or final is only forgotten by a sweep.
//
// A transaction's caller calls both queueBookkeeping and sendBookkeeping:
// each does nothing in the other kind of deployment. The turn's scripts
// make their steps on a Cluster only.

// bookkeeping queues commands on keys outside a transaction's slot.
type bookkeeping func(p redis.Pipeliner)

// queueBookkeeping queues steps in the transaction p when the store is not
// a Cluster; on a Cluster it queues nothing (see sendBookkeeping). A nil
// step is skipped.
func (s *Store) queueBookkeeping(p redis.Pipeliner, steps ...bookkeeping) {
	if s.clustered {
		return
	}
	for _, step := range steps {
		if step != nil {
			step(p)
		}
	}
}

// sendBookkeeping sends steps in one pipeline of their own when the store
// is a Cluster (the client sends each node its part at the same time);
// elsewhere they were queued in the transaction and it sends nothing. A
// nil step is skipped.
func (s *Store) sendBookkeeping(ctx context.Context, steps ...bookkeeping) error {
	if !s.clustered {
		return nil
	}
	var queue []bookkeeping
	for _, step := range steps {
		if step != nil {
			queue = append(queue, step)
		}
	}
	if len(queue) == 0 {
		return nil
	}
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, step := range queue {
			step(p)
		}
		return nil
	})
	return err
}

// watchOn runs fn with a transaction on one connection to the server that
// holds key; fn sends WATCH itself, in the pipeline of its first reads, to
// save a round trip. On a single node or Sentinel that is the client's own
// Watch. A Cluster client's Watch needs its keys up front and sends WATCH
// on its own, so on a Cluster fn runs on the master of key's slot instead:
// every key fn watches, reads and writes must then share key's hash tag.
//
// A Cluster node that answers MOVED or ASK (the slot moved, during
// resharding) or cannot be reached (it died) fails the call once; the
// client reloads its slot map then (failover.go), so the caller's retry
// goes to the new master.
func (s *Store) watchOn(ctx context.Context, key string, fn func(*redis.Tx) error) error {
	cluster, ok := s.rdb.(*redis.ClusterClient)
	if !ok {
		return s.rdb.Watch(ctx, fn)
	}
	node, err := cluster.MasterForKey(ctx, key)
	if err != nil {
		return err
	}
	return node.Watch(ctx, fn)
}
