package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrSessionNotFound is returned when a response names a session the user
// does not have.
var ErrSessionNotFound = errors.New("store: session not found")

// Begin is the first step of a response.
type Begin struct {
	User, Session, ResponseID string
	// CreateSession makes a new session for the response (no sessionId
	// given); otherwise the session must exist.
	CreateSession bool
	Receipt       []byte        // the in_progress receipt
	Lease         time.Duration // how long the hold lasts unless renewed
	Now           string
}

var beginScript = redis.NewScript(`
if ARGV[6] == '1' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return {-2} end
  redis.call('HSET', KEYS[1], 'createdAt', ARGV[5], 'updatedAt', ARGV[5], 'msgs', 0)
elseif redis.call('EXISTS', KEYS[1]) == 0 then
  return {0}
end
if not redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[2]) then return {-1} end
redis.call('SADD', KEYS[4], ARGV[7])
redis.call('SET', KEYS[5], ARGV[3], 'EX', ARGV[4])
return {1, redis.call('HGETALL', KEYS[2])}
`)

// BeginResponse takes the session's lease for the response, writes its
// in_progress receipt, and returns the session state, in one round trip.
// It returns ErrSessionNotFound, ErrSessionBusy (another response holds the
// session) or ErrSessionExists.
func (s *Store) BeginResponse(ctx context.Context, b Begin) (map[string]json.RawMessage, error) {
	k := s.sessionKeys(b.User, b.Session)
	create := "0"
	if b.CreateSession {
		create = "1"
	}
	var res *redis.Cmd
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		res = beginScript.Run(ctx, p,
			[]string{k.meta, k.state, k.lease, k.responses, k.receipt(b.ResponseID)},
			b.ResponseID, b.Lease.Milliseconds(), b.Receipt, int(s.receiptTTL.Seconds()), b.Now, create,
			escapeID(b.ResponseID))
		if b.CreateSession {
			p.ZAdd(ctx, s.indexKey(b.User), redis.Z{Member: b.Session})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("store: begin response: %w", err)
	}
	out, err := res.Slice()
	if err != nil || len(out) == 0 {
		return nil, fmt.Errorf("store: begin response: unexpected reply %v: %v", out, err)
	}
	switch code, _ := out[0].(int64); code {
	case 0:
		return nil, ErrSessionNotFound
	case -1:
		return nil, ErrSessionBusy
	case -2:
		return nil, ErrSessionExists
	}
	state := map[string]json.RawMessage{}
	if len(out) > 1 {
		pairs, _ := out[1].([]any)
		for i := 0; i+1 < len(pairs); i += 2 {
			key, _ := pairs[i].(string)
			value, _ := pairs[i+1].(string)
			state[key] = json.RawMessage(value)
		}
	}
	return state, nil
}

// Commit is one step of a response that changes its receipt: the final one
// (completed, failed, cancelled, ...) or a suspension.
type Commit struct {
	User, Session, ResponseID string
	Receipt                   []byte
	Events                    [][]byte                   // appended to the response's event log
	Messages                  [][]byte                   // appended to the transcript
	StateDelta                map[string]json.RawMessage // merged into the session state
	Release                   bool                       // give up the session lease
	Now                       string
}

var commitScript = redis.NewScript(`
local holder = redis.call('GET', KEYS[4])
if holder and holder ~= ARGV[1] then return 0 end
local ttl = tonumber(ARGV[3])
local i = 5
local nstate = tonumber(ARGV[i]); i = i + 1
for _ = 1, nstate do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i+1]); i = i + 2
end
local nevents = tonumber(ARGV[i]); i = i + 1
if nevents > 0 then
  for _ = 1, nevents do redis.call('RPUSH', KEYS[6], ARGV[i]); i = i + 1 end
  redis.call('EXPIRE', KEYS[6], ttl)
end
local nmsgs = tonumber(ARGV[i]); i = i + 1
for _ = 1, nmsgs do
  local offset = redis.call('HINCRBY', KEYS[1], 'msgs', 1) - 1
  redis.call('ZADD', KEYS[3], offset, ARGV[i]); i = i + 1
end
if nstate > 0 or nmsgs > 0 then redis.call('HSET', KEYS[1], 'updatedAt', ARGV[4]) end
redis.call('SET', KEYS[5], ARGV[2], 'EX', ttl)
if ARGV[i] == '1' and holder then redis.call('DEL', KEYS[4]) end
return 1
`)

// ErrLeaseLost means another response took the session while this one ran
// (its lease lapsed); nothing of the step was written.
var ErrLeaseLost = errors.New("store: the response no longer holds its session")

// CommitResponse writes the receipt, its events, the transcript messages and
// the state delta of one step atomically, in one round trip.
func (s *Store) CommitResponse(ctx context.Context, c Commit) error {
	k := s.sessionKeys(c.User, c.Session)
	args := make([]any, 0, 8+2*len(c.StateDelta)+len(c.Events)+len(c.Messages))
	args = append(args, c.ResponseID, c.Receipt, int(s.receiptTTL.Seconds()), c.Now, len(c.StateDelta))
	args = append(args, stateArgs(c.StateDelta)...)
	args = append(args, len(c.Events))
	for _, e := range c.Events {
		args = append(args, e)
	}
	args = append(args, len(c.Messages))
	for _, m := range c.Messages {
		args = append(args, m)
	}
	release := "0"
	if c.Release {
		release = "1"
	}
	args = append(args, release)
	n, err := commitScript.Run(ctx, s.rdb,
		[]string{k.meta, k.state, k.msgs, k.lease, k.receipt(c.ResponseID), k.events(c.ResponseID)},
		args...).Int()
	if err != nil {
		return fmt.Errorf("store: commit response: %w", err)
	}
	if n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// WriteReceipt replaces a receipt on its own, without touching the session;
// used when a step could not be committed because the lease was lost.
func (s *Store) WriteReceipt(ctx context.Context, user, session, responseID string, receipt []byte) error {
	k := s.sessionKeys(user, session)
	return s.rdb.Set(ctx, k.receipt(responseID), receipt, s.receiptTTL).Err()
}

var renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)

// RenewLease extends the response's hold on its session; false means the
// lease is no longer the response's.
func (s *Store) RenewLease(ctx context.Context, user, session, responseID string, lease time.Duration) (bool, error) {
	k := s.sessionKeys(user, session)
	n, err := renewScript.Run(ctx, s.rdb, []string{k.lease}, responseID, lease.Milliseconds()).Int()
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

// Events reads a response's event log.
func (s *Store) Events(ctx context.Context, user, session, responseID string) ([][]byte, error) {
	k := s.sessionKeys(user, session)
	vals, err := s.rdb.LRange(ctx, k.events(responseID), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("store: read events: %w", err)
	}
	out := make([][]byte, len(vals))
	for i, v := range vals {
		out[i] = []byte(v)
	}
	return out, nil
}

// StoredMessage is a transcript message with its offset in the transcript.
type StoredMessage struct {
	Offset int64
	JSON   []byte
}

// Messages reads up to limit transcript messages starting at offset from,
// in order; O(log N + limit) whatever the transcript's length.
func (s *Store) Messages(ctx context.Context, user, session string, from int64, limit int) ([]StoredMessage, error) {
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
func (s *Store) LastMessages(ctx context.Context, user, session string, limit int) ([]StoredMessage, error) {
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

func storedMessages(zs []redis.Z) []StoredMessage {
	out := make([]StoredMessage, len(zs))
	for i, z := range zs {
		member, _ := z.Member.(string)
		out[i] = StoredMessage{Offset: int64(z.Score), JSON: []byte(member)}
	}
	return out
}
