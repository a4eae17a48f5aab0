package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// Every response that holds a session is registered in one sorted set,
// scored by the time its lease lapses unless renewed. A replica that dies
// stops renewing; any replica's sweeper then finds the run, sees that its
// lease is gone, and records its receipt as failed, so nothing stays
// in_progress forever.

func (s *Store) runsKey() string { return s.runs }

// runRef names a registered run and the replica that runs it.
type runRef struct {
	User     string `json:"u"`
	Session  string `json:"s"`
	Response string `json:"r"`
	Replica  string `json:"p,omitempty"`
	// Epoch is the attempt registered (store.Claim); 0 (omitted) is the
	// first, 1, as members were written before runs had epochs.
	Epoch int `json:"e,omitempty"`
}

func runMember(user, session, responseID, replica string) string {
	return runMemberAt(user, session, responseID, replica, 1)
}

// runMemberAt is the registry's member of a run at attempt epoch.
func runMemberAt(user, session, responseID, replica string, epoch int) string {
	if epoch <= 1 {
		epoch = 0
	}
	b, _ := json.Marshal(runRef{user, session, responseID, replica, epoch})
	return string(b)
}

// lapsedOf is the run a registry member names.
func lapsedOf(ref runRef) store.Lapsed {
	return store.Lapsed{User: ref.User, Session: ref.Session, ResponseID: ref.Response, Replica: ref.Replica, Epoch: max(ref.Epoch, 1)}
}

// registerRun is the bookkeeping step that registers a run, or refreshes
// its score when it is registered already.
func (s *Store) registerRun(ctx context.Context, user, session, responseID, replica string, epoch int, lease time.Duration) bookkeeping {
	score := float64(time.Now().Add(lease).UnixMilli())
	member := runMemberAt(user, session, responseID, replica, epoch)
	return func(p redis.Pipeliner) {
		p.ZAdd(ctx, s.runsKey(), redis.Z{Score: score, Member: member})
	}
}

// unregisterRun is the bookkeeping step that forgets a run.
func (s *Store) unregisterRun(ctx context.Context, user, session, responseID, replica string) bookkeeping {
	return s.forgetRun(ctx, runMember(user, session, responseID, replica))
}

// forgetRun is the bookkeeping step that removes a member of the registry.
func (s *Store) forgetRun(ctx context.Context, member string) bookkeeping {
	return func(p redis.Pipeliner) { p.ZRem(ctx, s.runsKey(), member) }
}

// SweepLapsed finds up to limit runs whose lease lapsed before now. A run
// for which due returns false is left alone (looked at again later). For
// the others, failed(run, receipt) gives the receipt to record in place of
// a receipt that is not final (nil keeps it; failed is not asked about a
// final or missing receipt, which is kept as it is); the run is then
// forgotten.
// Several replicas may sweep at once: a receipt is replaced only if it did
// not change since it was read. It returns the runs it failed.
func (s *Store) SweepLapsed(ctx context.Context, now time.Time, limit int, due func(store.Lapsed) bool, failed func(store.Lapsed, []byte) []byte) ([]store.Lapsed, error) {
	members, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{
		Key: s.runsKey(), Start: "-inf", Stop: now.UnixMilli(), ByScore: true, Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("store: sweep runs: %w", err)
	}
	var out []store.Lapsed
	for _, m := range members {
		var ref runRef
		if json.Unmarshal([]byte(m), &ref) != nil {
			s.rdb.ZRem(ctx, s.runsKey(), m)
			continue
		}
		run := lapsedOf(ref)
		if !due(run) {
			continue
		}
		swept, err := s.sweepOne(ctx, &run, m, failed)
		if swept {
			out = append(out, run)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// sweepOne fails one lapsed run, unless its lease is held again, and
// forgets it. On a Cluster the run is forgotten after its receipt is
// failed: a crash in between leaves it registered, and the next sweep
// finds its receipt final and only forgets it. It sets the run's Webhook.
func (s *Store) sweepOne(ctx context.Context, run *store.Lapsed, member string, failed func(store.Lapsed, []byte) []byte) (bool, error) {
	k := s.sessionKeys(run.User, run.Session)
	forget := s.forgetRun(ctx, member)
	swept, done := false, false
	err := s.watchOn(ctx, k.lease, func(tx *redis.Tx) error {
		var holder, receipt, webhook *redis.StringCmd
		_, err := tx.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Do(ctx, "watch", k.lease, k.receipt(run.ResponseID))
			holder = p.Get(ctx, k.lease)
			receipt = p.Get(ctx, k.receipt(run.ResponseID))
			webhook = p.Get(ctx, k.webhook(run.ResponseID))
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			_ = tx.Unwatch(ctx).Err()
			return err
		}
		if holder.Val() == run.ResponseID {
			// Still held: the holder renews it; its score is refreshed then.
			return tx.Unwatch(ctx).Err()
		}
		// A missing receipt (expired, or its session deleted) has nothing
		// to fail, and a final one never changes: failed is not asked
		// then, and the run is only forgotten.
		run.Webhook = webhook.Val()
		var replacement []byte
		if receipt.Err() == nil && !store.IsFinalReceipt([]byte(receipt.Val())) {
			replacement = failed(*run, []byte(receipt.Val()))
		}
		if replacement == nil && s.clustered {
			// Nothing to write under the session's slot: no transaction.
			done = true
			return tx.Unwatch(ctx).Err()
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			if replacement != nil {
				p.Set(ctx, k.receipt(run.ResponseID), replacement, s.receiptTTL)
				p.Publish(ctx, s.eventsChannel(run.User, run.Session, run.ResponseID), -1)
			}
			s.queueBookkeeping(p, forget)
			return nil
		})
		swept = err == nil && replacement != nil
		done = err == nil
		return err
	})
	if errors.Is(err, redis.TxFailedErr) {
		return false, nil // changed meanwhile: the next sweep looks again
	}
	if err != nil || !done {
		return false, err
	}
	if err := s.sendBookkeeping(ctx, forget); err != nil {
		return swept, fmt.Errorf("store: sweep runs: forget a swept run: %w", err)
	}
	return swept, nil
}

// RunsOf returns up to limit registered runs of replica. The registry is
// scanned for the replica's members (ZSCAN with a pattern): it is asked
// only about a replica whose liveness lapsed, until its runs are claimed.
func (s *Store) RunsOf(ctx context.Context, replica string, limit int) ([]store.Lapsed, error) {
	quoted, _ := json.Marshal(replica)
	pattern := `*,"p":` + globEscaper.Replace(string(quoted)) + `[,}]*`
	var out []store.Lapsed
	var cursor uint64
	for {
		members, next, err := s.rdb.ZScan(ctx, s.runsKey(), cursor, pattern, 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("store: runs of a replica: %w", err)
		}
		for i := 0; i < len(members); i += 2 { // member, score, ...
			var ref runRef
			if json.Unmarshal([]byte(members[i]), &ref) != nil || ref.Replica != replica {
				continue
			}
			out = append(out, lapsedOf(ref))
			if limit > 0 && len(out) == limit {
				return out, nil
			}
		}
		if cursor = next; cursor == 0 {
			return out, nil
		}
	}
}

// globEscaper escapes the characters a ZSCAN pattern gives a meaning.
var globEscaper = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)

// claimRunScript hands a run to another replica (see ClaimRun).
// KEYS: 1 the run's epoch, 2 lease, 3 receipt, 4 event log, 5 request, 6
// webhook, 7 session meta, 8 the run's attempts, 9 its hand-off mark; 10
// the run registry where one server holds every key. ARGV: 1 the epoch claimed from, 2 the response ID, 3 the lease in
// ms, 4 the receipt TTL in ms, 5 the registry's old member, 6 its new
// member, 7 the new member's score.
// It returns -2 (fenced) or -1 (final or gone), forgetting the old member,
// 0 when another response holds the session, and otherwise {new epoch,
// request, webhook, receipt, last event's sequence or -1, attempts, 1 when
// the run was marked handed off (the mark is deleted) else 0}.
var claimRunScript = redis.NewScript(finalReceiptLua + fencedLua + `
if fenced(KEYS[1], ARGV[1]) then
  if KEYS[10] then redis.call('ZREM', KEYS[10], ARGV[5]) end
  return -2
end
if redis.call('EXISTS', KEYS[3]) == 0 or redis.call('EXISTS', KEYS[7]) == 0 or finished(KEYS[3], KEYS[4]) then
  if KEYS[10] then redis.call('ZREM', KEYS[10], ARGV[5]) end
  return -1
end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[2] then return 0 end
local epoch = tonumber(ARGV[1]) + 1
redis.call('SET', KEYS[1], epoch, 'PX', ARGV[4])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
if KEYS[10] then
  redis.call('ZREM', KEYS[10], ARGV[5])
  redis.call('ZADD', KEYS[10], ARGV[7], ARGV[6])
end
local last = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
return {epoch, redis.call('GET', KEYS[5]) or '', redis.call('GET', KEYS[6]) or '', redis.call('GET', KEYS[3]), last[2] or '-1',
  tonumber(redis.call('GET', KEYS[8]) or '1'), redis.call('DEL', KEYS[9])}
`)

// ClaimRun hands a run to c.Claimer in one script (see store.Runs). On a
// Cluster the registry is written after the script, in a step of its own
// (cluster.go): a crash in between leaves the old member, which a later
// claim finds fenced and forgets, and no entry for the claimer until its
// first renewal registers it.
func (s *Store) ClaimRun(ctx context.Context, c store.Claim) (store.Claimed, error) {
	k := s.sessionKeys(c.User, c.Session)
	from := max(c.Epoch, 1)
	old := runMemberAt(c.User, c.Session, c.ResponseID, c.Replica, from)
	claimed := runMemberAt(c.User, c.Session, c.ResponseID, c.Claimer, from+1)
	call := newScriptCall(claimRunScript, 18, 4)
	for _, key := range []string{k.epoch(c.ResponseID), k.lease, k.receipt(c.ResponseID), k.events(c.ResponseID),
		k.request(c.ResponseID), k.webhook(c.ResponseID), k.meta, k.attempts(c.ResponseID), k.handedOff(c.ResponseID)} {
		call.key(key)
	}
	if !s.clustered {
		call.key(s.runsKey())
	}
	call.num(int64(from))
	call.str(c.ResponseID)
	call.num(millis(c.Lease))
	call.num(millis(s.receiptTTL))
	call.str(old)
	call.str(claimed)
	call.num(time.Now().Add(c.Lease).UnixMilli())
	reply, err := s.runScript(ctx, call).Result()
	if err != nil {
		return store.Claimed{}, fmt.Errorf("store: claim run: %w", err)
	}
	if code, ok := reply.(int64); ok {
		switch code {
		case -2, -1:
			_ = s.sendBookkeeping(ctx, s.forgetRun(ctx, old))
			if code == -2 {
				return store.Claimed{}, store.ErrFenced
			}
			return store.Claimed{}, store.ErrReceiptFinal
		default:
			return store.Claimed{}, store.ErrSessionBusy
		}
	}
	fields, ok := reply.([]any)
	if !ok || len(fields) != 7 {
		return store.Claimed{}, fmt.Errorf("store: claim run: unexpected reply %T from the claim script", reply)
	}
	epoch, _ := fields[0].(int64)
	request, _ := fields[1].(string)
	webhook, _ := fields[2].(string)
	receipt, _ := fields[3].(string)
	lastText, _ := fields[4].(string)
	attempt, _ := fields[5].(int64)
	handedOff, _ := fields[6].(int64)
	last, err := strconv.ParseFloat(lastText, 64)
	if err != nil {
		return store.Claimed{}, fmt.Errorf("store: claim run: the log's last sequence %q is not a number", lastText)
	}
	_ = s.sendBookkeeping(ctx, s.forgetRun(ctx, old), s.registerRun(ctx, c.User, c.Session, c.ResponseID, c.Claimer, int(epoch), c.Lease))
	out := store.Claimed{Epoch: int(epoch), Webhook: webhook, Receipt: []byte(receipt), LastSequence: int(last), Attempt: max(int(attempt), 1),
		HandedOff: handedOff == 1}
	if request != "" {
		out.Request = []byte(request)
	}
	return out, nil
}
