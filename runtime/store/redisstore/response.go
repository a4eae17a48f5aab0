package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/harnest/harnest/runtime/store"

	"github.com/redis/go-redis/v9"
)

// BeginResponse takes the session's lease for the response, writes its
// in_progress receipt, and returns the session state: one MULTI/EXEC round
// trip, plus one more to undo it when the session is missing or busy. It
// returns ErrSessionNotFound or ErrSessionBusy (another response holds the
// session).
//
// On a Cluster the run registry and the user's session index are written
// in steps of their own (see cluster.go): the run is registered before the
// transaction, and a new session indexed after it.
//
// The turn path uses transactions rather than Lua so that the embedded
// store (whose Lua costs a fresh interpreter per call) stays fast; the same
// commands run on a real Redis.
func (s *Store) BeginResponse(ctx context.Context, b store.Begin) (map[string]json.RawMessage, error) {
	k := s.sessionKeys(b.User, b.Session)
	receiptKey := k.receipt(b.ResponseID)
	register := s.registerRun(ctx, b.User, b.Session, b.ResponseID, b.Replica, b.Lease)
	var index bookkeeping
	if b.CreateSession {
		index = s.indexSession(ctx, b.User, b.Session)
	}
	// A crash right after this leaves a run whose receipt is missing: a
	// sweep only forgets it.
	if err := s.sendBookkeeping(ctx, register); err != nil {
		return nil, fmt.Errorf("store: begin response: register the run: %w", err)
	}
	var existing *redis.IntCmd
	var lease *redis.BoolCmd
	var state *redis.MapStringStringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if b.CreateSession {
			// A new session has a fresh random ID: nothing to check, no
			// state to read.
			p.HSet(ctx, k.meta, "createdAt", b.Now, "updatedAt", b.Now, "msgs", 0)
		} else {
			existing = p.Exists(ctx, k.meta)
			state = p.HGetAll(ctx, k.state)
		}
		lease = p.SetNX(ctx, k.lease, b.ResponseID, b.Lease)
		p.Set(ctx, receiptKey, b.Receipt, s.receiptTTL)
		p.SAdd(ctx, k.responses, escapeID(b.ResponseID))
		s.queueBookkeeping(p, register, index)
		return nil
	})
	if err != nil {
		// The transaction may have run all the same (its answer lost): the
		// run stays registered, so a sweep fails its receipt once the lease
		// lapses.
		return nil, fmt.Errorf("store: begin response: %w", err)
	}
	var refusal error
	switch {
	case !b.CreateSession && existing.Val() == 0:
		refusal = store.ErrSessionNotFound
	case !lease.Val():
		refusal = store.ErrSessionBusy
	}
	if refusal != nil {
		if err := s.undoBegin(ctx, k, b, lease.Val()); err != nil {
			return nil, fmt.Errorf("store: begin response: undo a begin refused with %q: %w", refusal, err)
		}
		return nil, refusal
	}
	// Indexed once it exists: a crash before leaves a session that is not
	// listed, never a listed one that is missing.
	if err := s.sendBookkeeping(ctx, index); err != nil {
		return nil, fmt.Errorf("store: begin response: index the new session: %w", err)
	}
	if state == nil {
		return map[string]json.RawMessage{}, nil
	}
	out := make(map[string]json.RawMessage, len(state.Val()))
	for key, value := range state.Val() {
		out[key] = json.RawMessage(value)
	}
	return out, nil
}

// indexSession is the bookkeeping step that adds a session to its user's
// index.
func (s *Store) indexSession(ctx context.Context, user, session string) bookkeeping {
	return func(p redis.Pipeliner) { p.ZAdd(ctx, s.indexKey(user), redis.Z{Member: session}) }
}

// undoBegin removes what a refused BeginResponse wrote: the receipt, the
// response's entry, the lease if it took one for a missing session, and
// the run. On a Cluster the run is forgotten after the receipt is gone: a
// crash in between leaves a run whose receipt is missing, which a sweep
// only forgets. If it fails, the receipt stays in_progress until a sweep
// fails it (the run is still registered and nobody renews it).
func (s *Store) undoBegin(ctx context.Context, k sessionKeys, b store.Begin, tookLease bool) error {
	unregister := s.unregisterRun(ctx, b.User, b.Session, b.ResponseID, b.Replica)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, k.receipt(b.ResponseID))
		p.SRem(ctx, k.responses, escapeID(b.ResponseID))
		if tookLease {
			p.Del(ctx, k.lease)
		}
		s.queueBookkeeping(p, unregister)
		return nil
	})
	if err != nil {
		return err
	}
	return s.sendBookkeeping(ctx, unregister)
}

// maxCommitTries bounds the tries of a commit whose watched keys changed
// between its read and its write (its own lease renewed meanwhile, say):
// nothing was written, and each try reads again and tells why.
const maxCommitTries = 4

// CommitResponse writes the receipt, its events, the transcript messages and
// the state delta of one step atomically, in two round trips: WATCH the lease
// while reading it, the session and the transcript length, then MULTI/EXEC
// the writes, which Redis refuses if the lease changed in between (a lapsed
// lease adds a round trip that watches and reads the receipt and the
// session).
//
// It returns ErrLeaseLost when another response holds the session, or when
// the session is gone (deleted after the lease lapsed; nothing of it is
// written again), and ErrReceiptFinal when the receipt is already final.
//
// On a Cluster the user's wait index and the run registry are written in
// steps of their own (see cluster.go): a wait is indexed before the commit
// writes it, and a released run forgotten after it.
func (s *Store) CommitResponse(ctx context.Context, c store.Commit) error {
	var indexWait, unregister bookkeeping
	if c.Wait != nil {
		indexWait = s.indexWait(ctx, c.User, c.Session, c.Wait)
	}
	if c.Release {
		unregister = s.unregisterRun(ctx, c.User, c.Session, c.ResponseID, c.Replica)
	}
	// A crash (or a refused commit) after this leaves an index entry whose
	// wait is missing, which reads as no wait; it expires with the wait.
	if err := s.sendBookkeeping(ctx, indexWait); err != nil {
		return fmt.Errorf("store: commit response: index the wait: %w", err)
	}
	for range maxCommitTries {
		err := s.commitOnce(ctx, c, indexWait, unregister)
		switch {
		case errors.Is(err, redis.TxFailedErr):
			continue // the lease, the receipt or the session changed: read again
		case err != nil && !errors.Is(err, store.ErrLeaseLost) && !errors.Is(err, store.ErrReceiptFinal):
			return fmt.Errorf("store: commit response: %w", err)
		}
		if err == nil {
			// The commit is done whatever this answers: a run left
			// registered has a final receipt, which a sweep only forgets.
			_ = s.sendBookkeeping(ctx, unregister)
		}
		return err
	}
	// The watched keys kept changing: another response took the session,
	// or the receipt became final.
	if b, found, err := s.Receipt(ctx, c.User, c.Session, c.ResponseID); err == nil && found && store.IsFinalReceipt(b) {
		return store.ErrReceiptFinal
	}
	return store.ErrLeaseLost
}

// commitOnce is one try of CommitResponse; redis.TxFailedErr means that a
// watched key changed and nothing was written. The bookkeeping steps go in
// the transaction where the store is not a Cluster.
func (s *Store) commitOnce(ctx context.Context, c store.Commit, steps ...bookkeeping) error {
	k := s.sessionKeys(c.User, c.Session)
	receiptKey := k.receipt(c.ResponseID)
	return s.watchOn(ctx, k.lease, func(tx *redis.Tx) error {
		// WATCH travels in the same round trip as the reads. go-redis does
		// not know it is armed, so every path that skips EXEC unwatches.
		var holder, length *redis.StringCmd
		var exists *redis.IntCmd
		_, err := tx.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Do(ctx, "watch", k.lease)
			holder = p.Get(ctx, k.lease)
			exists = p.Exists(ctx, k.meta)
			length = p.HGet(ctx, k.meta, "msgs")
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			_ = tx.Unwatch(ctx).Err()
			return err
		}
		held := holder.Err() == nil
		if held && holder.Val() != c.ResponseID {
			_ = tx.Unwatch(ctx).Err()
			return store.ErrLeaseLost
		}
		if !held {
			// The lease lapsed: a sweeper may have made the receipt final
			// meanwhile (while the response holds its lease, nobody else
			// writes its receipt, and a renewal never takes a lease back
			// over a final receipt), and the session may have been deleted
			// (which a held lease prevents). Only this rare case pays a
			// round trip.
			var current *redis.StringCmd
			_, err := tx.Pipelined(ctx, func(p redis.Pipeliner) error {
				p.Do(ctx, "watch", receiptKey, k.meta)
				current = p.Get(ctx, receiptKey)
				exists = p.Exists(ctx, k.meta)
				return nil
			})
			if err != nil && !errors.Is(err, redis.Nil) {
				_ = tx.Unwatch(ctx).Err()
				return err
			}
			if current.Err() == nil && store.IsFinalReceipt([]byte(current.Val())) {
				_ = tx.Unwatch(ctx).Err()
				return store.ErrReceiptFinal
			}
		}
		if exists.Val() == 0 {
			// The session is gone: writing the step would make a partial
			// session record (a transcript and state without the session).
			_ = tx.Unwatch(ctx).Err()
			return store.ErrLeaseLost
		}
		offset, _ := strconv.ParseInt(length.Val(), 10, 64)
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			s.queueCommit(ctx, p, k, c, offset, held)
			s.queueBookkeeping(p, steps...)
			return nil
		})
		return err
	})
}

// queueCommit queues the writes of a step under the session's tag, whose
// transcript continues at offset; held says whether the response still
// holds its lease (a release then deletes it).
func (s *Store) queueCommit(ctx context.Context, p redis.Pipeliner, k sessionKeys, c store.Commit, offset int64, held bool) {
	if len(c.StateDelta) > 0 {
		p.HSet(ctx, k.state, stateArgs(c.StateDelta)...)
	}
	if len(c.Events) > 0 {
		s.addEvents(ctx, p, k.events(c.ResponseID), c.Events)
		p.Expire(ctx, k.events(c.ResponseID), s.receiptTTL)
	}
	if len(c.Messages) > 0 {
		members := make([]redis.Z, len(c.Messages))
		for i, m := range c.Messages {
			members[i] = redis.Z{Score: float64(offset + int64(i)), Member: m}
		}
		p.ZAdd(ctx, k.msgs, members...)
		p.HSet(ctx, k.meta, "msgs", offset+int64(len(c.Messages)), "updatedAt", c.Now)
	} else if len(c.StateDelta) > 0 {
		p.HSet(ctx, k.meta, "updatedAt", c.Now)
	}
	p.Set(ctx, k.receipt(c.ResponseID), c.Receipt, s.receiptTTL)
	if c.Wait != nil {
		s.addWait(ctx, p, k, c.Wait)
	}
	if c.Release && held {
		p.Del(ctx, k.lease)
	}
	if len(c.Events) > 0 {
		p.Publish(ctx, s.eventsChannel(c.User, c.Session, c.ResponseID), c.Events[len(c.Events)-1].Sequence)
	}
}

// ReplaceReceipt replaces a receipt that is not final, without touching the
// session: a resumed response is in_progress again, and a response whose
// step could not be committed (lease lost) records its failure. It returns
// ErrReceiptFinal, writing nothing, when the receipt is already final.
func (s *Store) ReplaceReceipt(ctx context.Context, user, session, responseID string, receipt []byte) error {
	key := s.sessionKeys(user, session).receipt(responseID)
	err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
		current, err := tx.Get(ctx, key).Bytes()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if err == nil && store.IsFinalReceipt(current) {
			return store.ErrReceiptFinal
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, receipt, s.receiptTTL)
			return nil
		})
		return err
	}, key)
	if errors.Is(err, redis.TxFailedErr) {
		return store.ErrReceiptFinal // only a final write races a holder's own writes
	}
	if err != nil && !errors.Is(err, store.ErrReceiptFinal) {
		return fmt.Errorf("store: write receipt: %w", err)
	}
	return err
}

// renewScript extends the response's lease, or takes it again when it
// lapsed, nobody else took it, the session still exists and its receipt
// is not final (the replica lived through a Redis outage longer than the
// lease, and nobody failed the response or deleted the session
// meanwhile). Receipts are compact JSON whose first "status" key is the
// envelope's (IDs in it before are escaped strings).
// KEYS: lease, receipt, session meta. ARGV: response ID, lease in ms.
var renewScript = redis.NewScript(`
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if holder then return 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
local receipt = redis.call('GET', KEYS[2])
if receipt then
  local _, e = string.find(receipt, '"status":"', 1, true)
  if e then
    local status = string.match(receipt, '^(%a+)"', e + 1)
    if status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'denied' then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`)

// RenewLease extends the response's hold on its session, and refreshes its
// entry among the running responses; false means the response does not
// hold the session (another one does, the receipt is final, or the
// session is gone).
func (s *Store) RenewLease(ctx context.Context, user, session, responseID, replica string, lease time.Duration) (bool, error) {
	k := s.sessionKeys(user, session)
	var renewed *redis.Cmd
	// Both commands may run again after NOSCRIPT (see pipelined): a renewal
	// and a registration are the same the second time.
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		renewed = renewScript.Run(ctx, p, []string{k.lease, k.receipt(responseID), k.meta}, responseID, lease.Milliseconds())
		s.registerRun(ctx, user, session, responseID, replica, lease)(p)
	})
	n, _ := renewed.Int()
	return n == 1, err
}

// Receipt reads a response's receipt in the user's session; found is false
// when there is none.
func (s *Store) Receipt(ctx context.Context, user, session, responseID string) ([]byte, bool, error) {
	k := s.sessionKeys(user, session)
	b, err := s.rdb.Get(ctx, k.receipt(responseID)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: read receipt: %w", err)
	}
	return b, true, nil
}

// Messages reads up to limit transcript messages starting at offset from,
// in order; O(log N + limit) whatever the transcript's length.
func (s *Store) Messages(ctx context.Context, user, session string, from int64, limit int) ([]store.StoredMessage, error) {
	k := s.sessionKeys(user, session)
	zs, err := s.rdb.ZRangeByScoreWithScores(ctx, k.msgs, &redis.ZRangeBy{
		Min: strconv.FormatInt(from, 10), Max: "+inf", Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("store: read transcript: %w", err)
	}
	return storedMessages(zs), nil
}

// LastMessages reads the newest limit transcript messages, oldest first.
func (s *Store) LastMessages(ctx context.Context, user, session string, limit int) ([]store.StoredMessage, error) {
	k := s.sessionKeys(user, session)
	zs, err := s.rdb.ZRevRangeWithScores(ctx, k.msgs, 0, int64(limit)-1).Result()
	if err != nil {
		return nil, fmt.Errorf("store: read transcript: %w", err)
	}
	for i, j := 0, len(zs)-1; i < j; i, j = i+1, j-1 {
		zs[i], zs[j] = zs[j], zs[i]
	}
	return storedMessages(zs), nil
}

func storedMessages(zs []redis.Z) []store.StoredMessage {
	out := make([]store.StoredMessage, len(zs))
	for i, z := range zs {
		member, _ := z.Member.(string)
		out[i] = store.StoredMessage{Offset: int64(z.Score), JSON: []byte(member)}
	}
	return out
}
