package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// CreatePairingCode stores a single-use pairing code until c.ExpiresAt.
func (s *Store) CreatePairingCode(ctx context.Context, c store.PairingCode, now time.Time) error {
	keep := c.ExpiresAt.Sub(now)
	if keep <= 0 {
		return fmt.Errorf("store: the pairing code expires at %s, before now (%s)", c.ExpiresAt, now)
	}
	key := s.relayCodeKey(c.Hash)
	p := s.rdb.TxPipeline()
	p.HSet(ctx, key, "owner", c.Owner, "name", c.Name, "kind", c.Kind, "expires", relayMS(c.ExpiresAt))
	p.PExpire(ctx, key, keep)
	_, err := p.Exec(ctx)
	return err
}

// exchangeScript consumes a live code whose owner is ARGV[9] and whose
// name and kind match, and writes the session and the participant (its
// look in ARGV[10..13]).
var exchangeScript = redis.NewScript(`
local c = redis.call('HMGET', KEYS[1], 'name', 'kind', 'expires', 'owner')
if not c[1] or c[4] ~= ARGV[9] then return 'invalid' end
if tonumber(c[3]) <= tonumber(ARGV[3]) then
  redis.call('DEL', KEYS[1])
  return 'invalid'
end
if c[1] ~= ARGV[1] or c[2] ~= ARGV[2] then return 'mismatch' end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 'owner', ARGV[9], 'pid', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[8])
redis.call('HSET', KEYS[3], 'id', ARGV[4], 'owner', ARGV[9], 'name', ARGV[1], 'kind', ARGV[2], 'description', ARGV[7],
  'state', 'active', 'paired', ARGV[3], 'expires', ARGV[6], 'token', ARGV[5],
  'look', ARGV[10], 'look_line', ARGV[11], 'look_background', ARGV[12], 'display_name', ARGV[13])
redis.call('PEXPIRE', KEYS[3], ARGV[8])
redis.call('ZADD', KEYS[4], ARGV[6], ARGV[4])
return 'ok'
`)

// exchangeRefusals are exchangeScript's refusals ("ok" is none).
var exchangeRefusals = map[string]error{"invalid": store.ErrPairingInvalid, "mismatch": store.ErrPairingMismatch}

// ExchangePairingCode consumes a live, matching code and creates the
// participant of the code's owner with its session token.
func (s *Store) ExchangePairingCode(ctx context.Context, p store.Pairing) (store.RelayParticipant, error) {
	if p.TTL <= 0 {
		return store.RelayParticipant{}, fmt.Errorf("store: a pairing needs a positive TTL, not %s", p.TTL)
	}
	codeKey := s.relayCodeKey(p.CodeHash)
	// The owner decides where the participant's keys go, so it is read
	// first; the script checks it again while it consumes the code.
	owner, err := s.rdb.HGet(ctx, codeKey, "owner").Result()
	if errors.Is(err, redis.Nil) || err == nil && owner == "" {
		return store.RelayParticipant{}, store.ErrPairingInvalid
	}
	if err != nil {
		return store.RelayParticipant{}, err
	}
	expires := p.Now.Add(p.TTL)
	res, err := exchangeScript.Run(ctx, s.rdb,
		[]string{codeKey, s.relaySessionKey(p.TokenHash), s.relayPartKey(owner, p.ParticipantID), s.relayPartsKey(owner)},
		p.Name, p.Kind, relayMS(p.Now), p.ParticipantID, p.TokenHash, relayMS(expires), p.Description,
		p.TTL.Milliseconds(), owner, p.Look.Look, p.Look.Line, p.Look.Background, p.Look.DisplayName).Text()
	if err == nil {
		err = exchangeRefusals[res]
	}
	if err != nil {
		return store.RelayParticipant{}, err
	}
	return store.RelayParticipant{ID: p.ParticipantID, Owner: owner, Name: p.Name, Kind: p.Kind,
		Description: p.Description, State: store.RelayActive, PairedAt: time.UnixMilli(relayMS(p.Now)).UTC(),
		ExpiresAt: time.UnixMilli(relayMS(expires)).UTC(), TokenHash: p.TokenHash, Look: p.Look}, nil
}

// participantFrom reads a participant's hash; false when it is not one.
func participantFrom(m map[string]string) (store.RelayParticipant, bool) {
	if m["id"] == "" || m["owner"] == "" {
		return store.RelayParticipant{}, false
	}
	return store.RelayParticipant{ID: m["id"], Owner: m["owner"], Name: m["name"], Kind: m["kind"],
		Description: m["description"], State: m["state"], PairedAt: relayTime(m["paired"]),
		ExpiresAt: relayTime(m["expires"]), TokenHash: m["token"],
		Look: store.RelayLook{Look: m["look"], Line: m["look_line"], Background: m["look_background"], DisplayName: m["display_name"]}}, true
}

// ParticipantByToken finds the live participant a session token belongs
// to.
func (s *Store) ParticipantByToken(ctx context.Context, tokenHash string, now time.Time) (store.RelayParticipant, bool, error) {
	sess, err := s.rdb.HMGet(ctx, s.relaySessionKey(tokenHash), "owner", "pid").Result()
	if err != nil {
		return store.RelayParticipant{}, false, err
	}
	owner, _ := sess[0].(string)
	pid, _ := sess[1].(string)
	if owner == "" || pid == "" {
		return store.RelayParticipant{}, false, nil
	}
	p, ok, err := s.GetParticipant(ctx, owner, pid, now)
	if err != nil || !ok || p.TokenHash != tokenHash {
		return store.RelayParticipant{}, false, err
	}
	return p, true, nil
}

// GetParticipant reads one of owner's live participants.
func (s *Store) GetParticipant(ctx context.Context, owner, id string, now time.Time) (store.RelayParticipant, bool, error) {
	m, err := s.rdb.HGetAll(ctx, s.relayPartKey(owner, id)).Result()
	if err != nil {
		return store.RelayParticipant{}, false, err
	}
	p, ok := participantFrom(m)
	if !ok || p.Owner != owner || p.ID != id || !p.ExpiresAt.After(now) {
		return store.RelayParticipant{}, false, nil
	}
	return p, true, nil
}

// ListParticipants lists owner's live participants, oldest pairing first.
func (s *Store) ListParticipants(ctx context.Context, owner string, now time.Time) ([]store.RelayParticipant, error) {
	nowMS := strconv.FormatInt(relayMS(now), 10)
	var ids *redis.StringSliceCmd
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		p.ZRemRangeByScore(ctx, s.relayPartsKey(owner), "-inf", nowMS)
		ids = p.ZRangeByScore(ctx, s.relayPartsKey(owner), &redis.ZRangeBy{Min: "(" + nowMS, Max: "+inf"})
	})
	if err != nil || len(ids.Val()) == 0 {
		return nil, err
	}
	cmds := make([]*redis.MapStringStringCmd, len(ids.Val()))
	err = s.pipelined(ctx, func(p redis.Pipeliner) {
		for i, id := range ids.Val() {
			cmds[i] = p.HGetAll(ctx, s.relayPartKey(owner, id))
		}
	})
	if err != nil {
		return nil, err
	}
	var out []store.RelayParticipant
	for _, c := range cmds {
		if part, ok := participantFrom(c.Val()); ok && part.Owner == owner && part.ExpiresAt.After(now) {
			out = append(out, part)
		}
	}
	sortParticipants(out)
	return out, nil
}

// sortParticipants orders participants by pairing time, then ID.
func sortParticipants(ps []store.RelayParticipant) {
	sort.Slice(ps, func(i, j int) bool {
		if !ps[i].PairedAt.Equal(ps[j].PairedAt) {
			return ps[i].PairedAt.Before(ps[j].PairedAt)
		}
		return ps[i].ID < ps[j].ID
	})
}

// setStateScript changes a live participant's state and wakes its inbox.
var setStateScript = redis.NewScript(`
local exp = redis.call('HGET', KEYS[1], 'expires')
if not exp or tonumber(exp) <= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`)

// SetParticipantState pauses or resumes one of owner's live participants.
func (s *Store) SetParticipantState(ctx context.Context, owner, id, state string, now time.Time) (bool, error) {
	if state != store.RelayActive && state != store.RelayPaused {
		return false, fmt.Errorf("store: a participant's state is %q or %q, not %q", store.RelayActive, store.RelayPaused, state)
	}
	n, err := setStateScript.Run(ctx, s.rdb, []string{s.relayPartKey(owner, id)},
		state, relayMS(now), s.relayWakeChannel(), relayWakeInbox(owner, id)).Int()
	return n == 1, err
}

// DisconnectParticipant removes one of owner's live participants with its
// session token, inbox and spacing.
func (s *Store) DisconnectParticipant(ctx context.Context, owner, id string, now time.Time) (bool, error) {
	p, ok, err := s.GetParticipant(ctx, owner, id, now)
	if err != nil || !ok {
		return false, err
	}
	pipe := s.rdb.TxPipeline()
	pipe.Del(ctx, s.relayPartKey(owner, id), s.relaySessionKey(p.TokenHash), s.relayInboxKey(owner, id), s.relaySayKey(owner, id))
	pipe.ZRem(ctx, s.relayPartsKey(owner), id)
	pipe.Publish(ctx, s.relayWakeChannel(), relayWakeInbox(owner, id))
	if _, err := pipe.Exec(ctx); err != nil {
		return false, err
	}
	return true, nil
}
