package redisstore

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// The tool calls of tools at home; see relay_tools.go for the keys.

// beginCallScript returns the existing call (its hash as a list), or
// counts the run's call ('spent' past ARGV[1]) and writes the call, its
// place in the participant's list (trimmed to ARGV[12]) and its approval
// (when ARGV[11] is set).
var beginCallScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGETALL', KEYS[1]) end
local n = tonumber(redis.call('GET', KEYS[2]) or '0')
if n >= tonumber(ARGV[1]) then return 'spent' end
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'pid', ARGV[5], 'run', ARGV[6], 'cid', ARGV[7], 'tool', ARGV[8], 'args', ARGV[9],
  'status', ARGV[10], 'appr', ARGV[11], 'started', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
local extra = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[12])
if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[3], 0, extra - 1) end
redis.call('PEXPIRE', KEYS[3], ARGV[2])
if ARGV[11] ~= '' then redis.call('SET', KEYS[4], ARGV[13], 'PX', ARGV[2]) end
return 'new'
`)

// BeginRelayToolCall records a new call of a run, or returns the one with
// its call ID.
func (s *Store) BeginRelayToolCall(ctx context.Context, owner string, c store.RelayToolCall, maxCalls int, keep time.Duration) (store.RelayToolCall, bool, error) {
	ref := relayCallRef(c.Run, c.CallID)
	approvalKey := s.relayApprovalKey(owner, c.ApprovalID) // unused without an approval
	res, err := beginCallScript.Run(ctx, s.rdb,
		[]string{s.relayCallKey(owner, c.Participant, ref), s.relayRunKey(owner, c.Participant, c.Run),
			s.relayCallsKey(owner, c.Participant), approvalKey},
		maxCalls, keep.Milliseconds(), ref, relayMS(c.StartedAt), c.Participant, c.Run, c.CallID, c.Tool, c.ArgsHash,
		c.Status, c.ApprovalID, store.RelayToolCallsMax, escapeID(c.Participant)+":"+ref).Result()
	if err != nil {
		return store.RelayToolCall{}, false, err
	}
	switch v := res.(type) {
	case string:
		if v == "spent" {
			return store.RelayToolCall{}, false, store.ErrRelayRunSpent
		}
		c.StartedAt = time.UnixMilli(relayMS(c.StartedAt)).UTC()
		c.Result = nil
		return c, false, nil
	case []any:
		return callFrom(pairs(v)), true, nil
	}
	return store.RelayToolCall{}, false, errors.New("store: unexpected answer from the tool call script")
}

// pairs turns HGETALL's flat list into a map.
func pairs(list []any) map[string]string {
	m := make(map[string]string, len(list)/2)
	for i := 0; i+1 < len(list); i += 2 {
		k, _ := list[i].(string)
		v, _ := list[i+1].(string)
		m[k] = v
	}
	return m
}

// callFrom reads a call's hash.
func callFrom(m map[string]string) store.RelayToolCall {
	c := store.RelayToolCall{Participant: m["pid"], Run: m["run"], CallID: m["cid"], Tool: m["tool"],
		ArgsHash: m["args"], Status: m["status"], ApprovalID: m["appr"], Code: m["code"],
		StartedAt: relayTime(m["started"])}
	if r := m["result"]; r != "" {
		c.Result = []byte(r)
	}
	if m["finished"] != "" {
		c.FinishedAt = relayTime(m["finished"])
	}
	return c
}

// GetRelayToolCall reads one call of a run.
func (s *Store) GetRelayToolCall(ctx context.Context, owner, participant, run, callID string) (store.RelayToolCall, bool, error) {
	m, err := s.rdb.HGetAll(ctx, s.relayCallKey(owner, participant, relayCallRef(run, callID))).Result()
	if err != nil || m["cid"] == "" {
		return store.RelayToolCall{}, false, err
	}
	return callFrom(m), true, nil
}

// decideScript moves a waiting call to ARGV[1] once.
var decideScript = redis.NewScript(`
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return 'unknown' end
if st ~= 'awaiting_approval' then return 'decided' end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
if ARGV[1] == 'denied' then redis.call('HSET', KEYS[1], 'code', 'approval_denied', 'finished', ARGV[2]) end
return 'ok'
`)

// DecideRelayToolCall answers the approval of a waiting call once.
func (s *Store) DecideRelayToolCall(ctx context.Context, owner, approvalID string, approve bool, now time.Time) (store.RelayToolCall, error) {
	// The approval names its call for as long as the call is kept; only
	// the call's status changes.
	target, err := s.rdb.Get(ctx, s.relayApprovalKey(owner, approvalID)).Result()
	if errors.Is(err, redis.Nil) {
		return store.RelayToolCall{}, store.ErrRelayApprovalUnknown
	}
	if err != nil {
		return store.RelayToolCall{}, err
	}
	pid, ref, ok := strings.Cut(target, ":")
	if !ok {
		return store.RelayToolCall{}, store.ErrRelayApprovalUnknown
	}
	key := s.relayOwnerPrefix(owner) + "tcall:" + pid + ":" + ref // both parts are escaped already
	status := store.RelayCallDenied
	if approve {
		status = store.RelayCallApproved
	}
	res, err := decideScript.Run(ctx, s.rdb, []string{key}, status, relayMS(now)).Text()
	if err != nil {
		return store.RelayToolCall{}, err
	}
	m, err := s.rdb.HGetAll(ctx, key).Result()
	if err != nil {
		return store.RelayToolCall{}, err
	}
	switch res {
	case "unknown":
		return store.RelayToolCall{}, store.ErrRelayApprovalUnknown
	case "decided":
		return callFrom(m), store.ErrRelayApprovalDecided
	}
	return callFrom(m), nil
}

// claimScript moves an approved call to running.
var claimScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'status') ~= 'approved' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'running')
return 1
`)

// ClaimRelayToolCall moves an approved call to running, for one caller.
func (s *Store) ClaimRelayToolCall(ctx context.Context, owner, participant, run, callID string) (bool, error) {
	n, err := claimScript.Run(ctx, s.rdb, []string{s.relayCallKey(owner, participant, relayCallRef(run, callID))}).Int()
	return n == 1, err
}

// finishScript records a running call's outcome.
var finishScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'code', ARGV[2], 'result', ARGV[3], 'finished', ARGV[4])
return 1
`)

// FinishRelayToolCall records a running call's outcome.
func (s *Store) FinishRelayToolCall(ctx context.Context, owner string, c store.RelayToolCall) error {
	return finishScript.Run(ctx, s.rdb, []string{s.relayCallKey(owner, c.Participant, relayCallRef(c.Run, c.CallID))},
		c.Status, c.Code, string(c.Result), relayMS(c.FinishedAt)).Err()
}

// ListRelayToolCalls returns a participant's newest calls first.
func (s *Store) ListRelayToolCalls(ctx context.Context, owner, participant string, limit int) ([]store.RelayToolCall, error) {
	refs, err := s.rdb.ZRevRange(ctx, s.relayCallsKey(owner, participant), 0, int64(limit)-1).Result()
	if err != nil {
		return nil, err
	}
	p := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(refs))
	for i, ref := range refs {
		cmds[i] = p.HGetAll(ctx, s.relayCallKey(owner, participant, ref))
	}
	if len(refs) > 0 {
		if _, err := p.Exec(ctx); err != nil {
			return nil, err
		}
	}
	out := []store.RelayToolCall{}
	for _, cmd := range cmds {
		if m := cmd.Val(); m["cid"] != "" {
			out = append(out, callFrom(m))
		}
	}
	return out, nil
}
