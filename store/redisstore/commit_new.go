package redisstore

import (
	"context"
	"fmt"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// commitNewSession writes the one step of a response that makes its
// session and releases it at once (a JSON turn answered in one step): a
// transaction of plain commands, no script, since there is nothing to
// check. Nobody knows the session before, so no lease is read or taken
// and nobody is told of the events. A script costs Redis about as much
// again as the commands it runs; a transaction's commands cost Redis
// what they cost on their own.
//
// Nothing in it depends on what is stored: sent again (its first answer
// lost), it writes the same values again.
//
// Where one server holds every key, concurrent ones go together in one
// transaction (round_trips.go). On a Cluster each goes on its own, and
// the user's session index is written after it, in a step of its own (see
// cluster.go).
func (s *Store) commitNewSession(ctx context.Context, c store.Commit) error {
	tx := s.newSessionCommands(c)
	queue := func(p redis.Pipeliner) { tx.queue(ctx, p) }
	var err error
	if s.clustered {
		_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error { queue(p); return nil })
	} else {
		err = s.commits.do(ctx, s.rdb, queue)
	}
	if err != nil {
		return fmt.Errorf("store: commit response: %w", err)
	}
	if s.clustered {
		// Not indexed, the session is not listed; it is not indexed again
		// (as a begin that could not index it).
		_ = s.sendBookkeeping(ctx, s.indexSession(ctx, c.User, c.Session))
	}
	s.addUsageAfter(ctx, c)
	return nil
}

// newSessionTx is the commands of a new session's one-step turn, built in
// one argList: each command is an allocation of go-redis's, its arguments
// none of their own.
type newSessionTx struct {
	argList
	ends [9]int // where each command's arguments end
	n    int    // commands
}

// end closes the command whose arguments were added since the last end.
func (tx *newSessionTx) end() {
	tx.ends[tx.n] = len(tx.args)
	tx.n++
}

// queue adds the commands to a pipeline.
func (tx *newSessionTx) queue(ctx context.Context, p redis.Pipeliner) {
	from := 0
	for _, to := range tx.ends[:tx.n] {
		p.Do(ctx, tx.args[from:to:to]...)
		from = to
	}
}

// newSessionCommands are commitNewSession's commands for c: the user's
// index (one server), the state, the session's meta (with its one
// response and its transcript, transcript.go), and the response's receipt
// and event log in one string (events.go).
func (s *Store) newSessionCommands(c store.Commit) *newSessionTx {
	k := s.sessionKeys(c.User, c.Session)
	strs := 10 + len(c.StateDelta) + len(c.Messages)
	usage := 0 // the usage's EVAL: 8 arguments, 3 keys, and usagePairs fields and counts
	if !s.clustered && len(c.Usage) > 0 {
		usage = usagePairs(c.Usage)
	}
	tx := &newSessionTx{argList: newArgList(36+2*len(c.StateDelta)+2*len(c.Messages)+2*usage, strs+4+usage, 5+usage)}
	if !s.clustered {
		tx.word("zadd")
		tx.str(s.indexKey(c.User))
		tx.word("0")
		tx.str(c.Session)
		tx.end()
	}
	if len(c.StateDelta) > 0 {
		tx.word("hset")
		tx.str(k.state)
		for field, value := range c.StateDelta {
			tx.str(field)
			tx.bytes(value)
		}
		tx.end()
	}
	tx.word("hset")
	tx.str(k.meta)
	tx.word("createdAt")
	tx.str(c.Now)
	tx.word("updatedAt")
	tx.str(c.Now)
	tx.word("msgs")
	tx.num(int64(len(c.Messages)))
	tx.str(responseField(c.ResponseID))
	tx.word("")
	for i, m := range c.Messages {
		tx.str(messageField(i))
		tx.bytes(m)
	}
	tx.end()
	// The session's first response (session_responses.go).
	tx.word("zadd")
	tx.str(k.order())
	tx.num(1)
	tx.str(c.ResponseID)
	tx.end()
	if usage > 0 { // before the log: see usageOnceScript
		tx.word("eval")
		tx.str(usageOnceSource)
		tx.num(3)
		tx.str(k.events(c.ResponseID))
		tx.str(s.usageKey(c.User, false, c.UsageDay))
		tx.str(s.usageKey("", true, c.UsageDay))
		tx.num(store.UsageRetention.Milliseconds())
		appendUsageArgs(&tx.argList, c.Usage)
		tx.end()
	}
	// The receipt and the whole log, which is this one batch: one plain
	// string (see events.go).
	tx.word("set")
	tx.str(k.events(c.ResponseID))
	tx.bytes(oneStepLog(c.Receipt, c.Events))
	tx.word("px")
	tx.num(millis(s.receiptTTL))
	tx.end()
	return tx
}
