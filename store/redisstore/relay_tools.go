package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// Tools at home (store.RelayTools) keeps its keys under the relay's hash
// tag, beside the relay's own (see relay.go):
//
//	{relay}:cb:<token hash>                   HASH    owner, pid, expires
//	{relay}:o:<owner>:cb:<pid>                STRING  the participant's token hash
//	{relay}:o:<owner>:grants:<pid>            SET     granted tool names
//	{relay}:o:<owner>:tcall:<pid>:<run>:<cid> HASH    one tool call
//	{relay}:o:<owner>:trun:<pid>:<run>        STRING  the run's call counter
//	{relay}:o:<owner>:tcalls:<pid>            ZSET    "<run>:<cid>" by start time
//	{relay}:o:<owner>:tappr:<approval id>     STRING  "<pid>:<run>:<cid>" of the call

func (s *Store) relayCallbackKey(hash string) string { return s.relayPrefix() + "cb:" + escapeID(hash) }
func (s *Store) relayCallbackOfKey(owner, pid string) string {
	return s.relayOwnerPrefix(owner) + "cb:" + escapeID(pid)
}
func (s *Store) relayGrantsKey(owner, pid string) string {
	return s.relayOwnerPrefix(owner) + "grants:" + escapeID(pid)
}

// relayCallRef names one call within a participant's calls: "<run>:<cid>",
// each part escaped.
func relayCallRef(run, callID string) string { return escapeID(run) + ":" + escapeID(callID) }

func (s *Store) relayCallKey(owner, pid, ref string) string {
	return s.relayOwnerPrefix(owner) + "tcall:" + escapeID(pid) + ":" + ref
}
func (s *Store) relayRunKey(owner, pid, run string) string {
	return s.relayOwnerPrefix(owner) + "trun:" + escapeID(pid) + ":" + escapeID(run)
}
func (s *Store) relayCallsKey(owner, pid string) string {
	return s.relayOwnerPrefix(owner) + "tcalls:" + escapeID(pid)
}
func (s *Store) relayApprovalKey(owner, id string) string {
	return s.relayOwnerPrefix(owner) + "tappr:" + escapeID(id)
}

// PutRelayCallback stores a participant's callback token and ends its
// earlier one. (A participant gets its token once, when it pairs, so the
// read of the earlier one and the write need not be one script.)
func (s *Store) PutRelayCallback(ctx context.Context, c store.RelayCallback, now time.Time) error {
	keep := c.ExpiresAt.Sub(now)
	if keep <= 0 {
		return fmt.Errorf("store: the callback token expires at %s, before now (%s)", c.ExpiresAt, now)
	}
	ofKey := s.relayCallbackOfKey(c.Owner, c.Participant)
	old, err := s.rdb.Get(ctx, ofKey).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	key := s.relayCallbackKey(c.TokenHash)
	p := s.rdb.TxPipeline()
	if old != "" {
		p.Del(ctx, s.relayCallbackKey(old))
	}
	p.HSet(ctx, key, "owner", c.Owner, "pid", c.Participant, "expires", relayMS(c.ExpiresAt))
	p.PExpire(ctx, key, keep)
	p.Set(ctx, ofKey, c.TokenHash, keep)
	_, err = p.Exec(ctx)
	return err
}

// RelayCallbackByToken finds a live callback token.
func (s *Store) RelayCallbackByToken(ctx context.Context, tokenHash string, now time.Time) (store.RelayCallback, bool, error) {
	m, err := s.rdb.HGetAll(ctx, s.relayCallbackKey(tokenHash)).Result()
	if err != nil {
		return store.RelayCallback{}, false, err
	}
	c := store.RelayCallback{TokenHash: tokenHash, Owner: m["owner"], Participant: m["pid"], ExpiresAt: relayTime(m["expires"])}
	if c.Owner == "" || c.Participant == "" || !c.ExpiresAt.After(now) {
		return store.RelayCallback{}, false, nil
	}
	return c, true, nil
}

// EndRelayCallback ends a participant's callback token.
func (s *Store) EndRelayCallback(ctx context.Context, owner, participant string) error {
	ofKey := s.relayCallbackOfKey(owner, participant)
	hash, err := s.rdb.Get(ctx, ofKey).Result()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return err
	}
	p := s.rdb.TxPipeline()
	p.Del(ctx, s.relayCallbackKey(hash), ofKey)
	_, err = p.Exec(ctx)
	return err
}

// SetRelayGrants replaces a participant's grants.
func (s *Store) SetRelayGrants(ctx context.Context, owner, participant string, tools []string, keep time.Duration) error {
	key := s.relayGrantsKey(owner, participant)
	p := s.rdb.TxPipeline()
	p.Del(ctx, key)
	if len(tools) > 0 {
		members := make([]any, len(tools))
		for i, t := range tools {
			members[i] = t
		}
		p.SAdd(ctx, key, members...)
		p.PExpire(ctx, key, keep)
	}
	_, err := p.Exec(ctx)
	return err
}

// RelayGrants reads a participant's grants, sorted.
func (s *Store) RelayGrants(ctx context.Context, owner, participant string) ([]string, error) {
	tools, err := s.rdb.SMembers(ctx, s.relayGrantsKey(owner, participant)).Result()
	if err != nil {
		return nil, err
	}
	sort.Strings(tools)
	return tools, nil
}
