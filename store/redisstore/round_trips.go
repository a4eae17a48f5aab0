package redisstore

import (
	"context"
	"errors"
	"sync"

	"github.com/redis/go-redis/v9"
)

// roundTripGroup sends the commands of concurrent callers together: while
// batches are in flight, the calls that arrive queue up, and the next one
// to go sends everything queued in one round trip. A lone call goes at
// once, as before; under load each round trip (a write and a read on both
// sides, which on loopback cost about as much as the commands) carries
// several turns. The store keeps two: the new sessions' transactions
// (commit_new.go), sent as one transaction, and the turns' scripts
// (scripts.go), sent as one pipeline, each script atomic on its own.
//
// One transaction for several turns keeps each turn atomic (a transaction
// is all or nothing as a whole); each call is told the errors of its own
// commands. On a Cluster a transaction keeps to one slot, so there each
// call is sent on its own (the callers do not use a group).
type roundTripGroup struct {
	tx      bool // a batch is one transaction, not a plain pipeline
	mu      sync.Mutex
	queue   []*queuedCall
	sending int // batches in flight
}

// queuedCall is one call waiting in, or leading, a batch.
type queuedCall struct {
	queue func(p redis.Pipeliner) // adds the call's commands
	cmds  []redis.Cmder           // its commands, once sent
	err   error
	// wake tells a waiting call that its batch was sent (false), or that
	// it sends the batch it is handed (true). Each call is woken once at
	// most.
	wake  chan bool
	batch []*queuedCall
}

// Bounds: batches in flight at once (two keep Redis busy while one
// travels), and calls in one batch.
const (
	maxBatchesInFlight = 2
	maxBatchCalls      = 64
)

// do sends the call's commands, in a batch with others when some are
// waiting, and returns the error of its own commands.
func (g *roundTripGroup) do(ctx context.Context, rdb redis.UniversalClient, queue func(p redis.Pipeliner)) error {
	q := &queuedCall{queue: queue, wake: make(chan bool, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, q)
	if g.sending >= maxBatchesInFlight {
		g.mu.Unlock()
		if lead := <-q.wake; !lead {
			return q.err
		}
	} else {
		g.sending++
		q.batch = g.take()
		g.mu.Unlock()
	}
	// Another call's context must not end the batch.
	sendBatch(context.WithoutCancel(ctx), rdb, q.batch, g.tx, q)
	g.mu.Lock()
	if len(g.queue) == 0 {
		g.sending--
		g.mu.Unlock()
		return q.err
	}
	// Hand what queued meanwhile to its first call, which sends it; this
	// one returns.
	next := g.queue[0]
	next.batch = g.take()
	g.mu.Unlock()
	next.wake <- true
	return q.err
}

// take removes up to maxBatchCalls queued calls; the caller holds mu.
func (g *roundTripGroup) take() []*queuedCall {
	n := min(len(g.queue), maxBatchCalls)
	batch := g.queue[:n:n]
	g.queue = g.queue[n:]
	if len(g.queue) == 0 {
		g.queue = nil
	}
	return batch
}

// sendBatch writes a batch, as one transaction when tx, and tells each
// call but the one sending it (leader) that it is done.
func sendBatch(ctx context.Context, rdb redis.UniversalClient, batch []*queuedCall, tx bool, leader *queuedCall) {
	var counts []int
	queue := func(p redis.Pipeliner) error {
		counts = make([]int, len(batch))
		for i, q := range batch {
			before := p.Len()
			q.queue(p)
			counts[i] = p.Len() - before
		}
		return nil
	}
	var cmds []redis.Cmder
	var err error
	if tx {
		cmds, err = rdb.TxPipelined(ctx, queue)
	} else {
		cmds, err = rdb.Pipelined(ctx, queue)
	}
	// cmds are the batch's commands in order (MULTI and EXEC excepted).
	at := 0
	for i, q := range batch {
		if at+counts[i] <= len(cmds) {
			q.cmds = cmds[at : at+counts[i]]
		}
		at += counts[i]
		q.err = firstError(q.cmds, err)
		if q != leader {
			q.wake <- false
		}
	}
}

// firstError is the first error among a call's commands; a batch that
// failed as a whole (no answer, or not a transaction) fails every call.
func firstError(cmds []redis.Cmder, batchErr error) error {
	var rerr redis.Error
	if batchErr != nil && (len(cmds) == 0 || !errors.As(batchErr, &rerr)) {
		return batchErr
	}
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil {
			return err
		}
	}
	return nil
}
