package redisstore

import (
	"context"
	"fmt"

	"github.com/harnest/harnest/runtime/store"

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
// transaction (group_commit.go). On a Cluster each goes on its own, and
// the user's session index is written after it, in a step of its own (see
// cluster.go).
func (s *Store) commitNewSession(ctx context.Context, c store.Commit) error {
	k := s.sessionKeys(c.User, c.Session)
	queue := func(p redis.Pipeliner) {
		p.SAdd(ctx, k.responses, escapeID(c.ResponseID))
		if !s.clustered {
			p.ZAdd(ctx, s.indexKey(c.User), redis.Z{Member: c.Session})
		}
		if len(c.StateDelta) > 0 {
			fields := make([]any, 0, 2*len(c.StateDelta))
			for field, value := range c.StateDelta {
				fields = append(fields, field, []byte(value))
			}
			p.HSet(ctx, k.state, fields...)
		}
		s.addEvents(ctx, p, k.events(c.ResponseID), c.Events)
		if len(c.Messages) > 0 {
			scored := make([]redis.Z, len(c.Messages))
			for i, m := range c.Messages {
				scored[i] = redis.Z{Score: float64(i), Member: m}
			}
			p.ZAdd(ctx, k.msgs, scored...)
		}
		p.HSet(ctx, k.meta, "createdAt", c.Now, "updatedAt", c.Now, "msgs", len(c.Messages))
		p.Set(ctx, k.receipt(c.ResponseID), c.Receipt, s.receiptTTL)
	}
	var err error
	if s.clustered {
		_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error { queue(p); return nil })
	} else {
		err = s.commits.commit(ctx, s.rdb, queue)
	}
	if err != nil {
		return fmt.Errorf("store: commit response: %w", err)
	}
	if s.clustered {
		// Not indexed, the session is not listed; it is not indexed again
		// (as a begin that could not index it).
		_ = s.sendBookkeeping(ctx, s.indexSession(ctx, c.User, c.Session))
	}
	return nil
}
