package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// beginScript takes a session's lease for a response and writes its
// in_progress receipt, or refuses and writes nothing.
//
// KEYS: 1 meta, 2 state, 3 lease, 4 receipt; for a response with a
// webhook then its webhook's key; where one server holds every key (not a
// Cluster, see cluster.go) then the run registry and, for a new session,
// the user's session index.
// The response joins the session's list of responses: a field r:<escaped
// ID> of its meta (keys.go).
// ARGV: 1 "1" to create the session, 2 now, 3 the response ID, 4 the lease
// in ms (0: no expiry), 5 the receipt, 6 its TTL in ms, 7 the escaped
// response ID, 8 the run's score, 9 the run's member, 10 the session ID,
// 11 the webhook ("": none, and no key for it), kept as long as the
// receipt, 12 the request (Begin.Request; "": none, and no key for it),
// kept as long too. The request's key follows the webhook's in KEYS. 13
// the session's channel of new responses (ListenEvents with no response
// ID), told of this one.
//
// It returns 0 when the session is missing, -1 when a response holds it
// or responses are queued for it, -2 when the session has a response with
// that ID already (its receipt is never overwritten),
// and otherwise the session's state as HGETALL answers it (field, value,
// ...; empty for a new session).
var beginScript = redis.NewScript(`
local create = ARGV[1] == '1'
if not create and redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
-- A session's queue (queue.go: meta's key less ':meta', then ':Q') goes
-- first.
if redis.call('EXISTS', string.sub(KEYS[1], 1, -6) .. ':Q') == 1 then return -1 end
if redis.call('EXISTS', KEYS[4]) == 1 then return -2 end
local took
if tonumber(ARGV[4]) > 0 then
  took = redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4], 'NX')
else
  took = redis.call('SET', KEYS[3], ARGV[3], 'NX')
end
if not took then return -1 end
if create then
  redis.call('HSET', KEYS[1], 'createdAt', ARGV[2], 'updatedAt', ARGV[2], 'msgs', 0)
end
redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[6])
redis.call('HSET', KEYS[1], 'r:' .. ARGV[7], '')
-- The session's responses in order (session_responses.go): meta's key
-- less ':meta', then ':o'.
local order = string.sub(KEYS[1], 1, -6) .. ':o'
if not redis.call('ZSCORE', order, ARGV[3]) then
  local last = redis.call('ZREVRANGE', order, 0, 0, 'WITHSCORES')
  redis.call('ZADD', order, (tonumber(last[2]) or 0) + 1, ARGV[3])
end
local n = 5
if ARGV[11] ~= '' then
  redis.call('SET', KEYS[n], ARGV[11], 'PX', ARGV[6])
  n = n + 1
end
if ARGV[12] ~= '' then
  redis.call('SET', KEYS[n], ARGV[12], 'PX', ARGV[6])
  n = n + 1
end
if KEYS[n] then redis.call('ZADD', KEYS[n], ARGV[8], ARGV[9]) end
if KEYS[n + 1] then redis.call('ZADD', KEYS[n + 1], 0, ARGV[10]) end
redis.call('PUBLISH', ARGV[13], '0')
if create then return {} end
return redis.call('HGETALL', KEYS[2])
`)

// BeginResponse takes the session's lease for the response, writes its
// in_progress receipt, registers the run and returns the session state, in
// one script: one round trip. It returns ErrSessionNotFound,
// ErrResponseExists or ErrSessionBusy (another response holds the
// session), having written nothing.
//
// On a Cluster the run registry and the user's session index are written
// in steps of their own (see cluster.go): the run is registered before the
// script (and forgotten again when the script refuses), and a new session
// indexed after it.
func (s *Store) BeginResponse(ctx context.Context, b store.Begin) (map[string]json.RawMessage, error) {
	var register, unregister, index bookkeeping
	if s.clustered {
		register = s.registerRun(ctx, b.User, b.Session, b.ResponseID, b.Replica, 1, b.Lease)
		unregister = s.unregisterRun(ctx, b.User, b.Session, b.ResponseID, b.Replica)
		if b.CreateSession {
			index = s.indexSession(ctx, b.User, b.Session)
		}
	}
	// A crash right after this leaves a run whose receipt is missing: a
	// sweep only forgets it.
	if err := s.sendBookkeeping(ctx, register); err != nil {
		return nil, fmt.Errorf("store: begin response: register the run: %w", err)
	}
	reply, err := s.runScript(ctx, s.beginCall(b)).Result()
	if err != nil {
		// The script may have run all the same (its answer lost): the run
		// stays registered, so a sweep fails its receipt once the lease
		// lapses.
		return nil, fmt.Errorf("store: begin response: %w", err)
	}
	if refusal, ok := reply.(int64); ok {
		err := store.ErrSessionBusy
		switch refusal {
		case 0:
			err = store.ErrSessionNotFound
		case -2:
			err = store.ErrResponseExists
		}
		if uerr := s.sendBookkeeping(ctx, unregister); uerr != nil {
			// The run stays registered without a receipt: a sweep forgets it.
			return nil, fmt.Errorf("store: begin response: forget the run of a begin refused with %q: %w", err, uerr)
		}
		return nil, err
	}
	// Indexed once it exists: a crash before leaves a session that is not
	// listed, never a listed one that is missing.
	if err := s.sendBookkeeping(ctx, index); err != nil {
		return nil, fmt.Errorf("store: begin response: index the new session: %w", err)
	}
	return stateReply(reply)
}

// beginCall is beginScript's call for b (see its KEYS and ARGV).
func (s *Store) beginCall(b store.Begin) scriptCall {
	k := s.sessionKeys(b.User, b.Session)
	c := newScriptCall(beginScript, 17, 3)
	c.key(k.meta)
	c.key(k.state)
	c.key(k.lease)
	c.key(k.receipt(b.ResponseID))
	if b.Webhook != "" {
		c.key(k.webhook(b.ResponseID))
	}
	if len(b.Request) > 0 {
		c.key(k.request(b.ResponseID))
	}
	if !s.clustered {
		c.key(s.runsKey())
		if b.CreateSession {
			c.key(s.indexKey(b.User))
		}
	}
	create := "0"
	if b.CreateSession {
		create = "1"
	}
	c.str(create)
	c.str(b.Now)
	c.str(b.ResponseID)
	c.num(millis(b.Lease))
	c.bytes(b.Receipt)
	c.num(millis(s.receiptTTL))
	c.str(escapeID(b.ResponseID))
	if s.clustered {
		c.str("") // the run is registered in a step of its own
		c.str("")
	} else {
		c.num(time.Now().Add(b.Lease).UnixMilli())
		c.str(runMember(b.User, b.Session, b.ResponseID, b.Replica))
	}
	c.str(b.Session)
	c.str(b.Webhook)
	c.bytes(b.Request)
	c.str(s.eventsChannel(b.User, b.Session, ""))
	return c
}

// stateReply reads beginScript's answer for a session it began: the
// state's fields and values, one after the other.
func stateReply(reply any) (map[string]json.RawMessage, error) {
	fields, ok := reply.([]any)
	if !ok || len(fields)%2 != 0 {
		return nil, fmt.Errorf("store: begin response: unexpected reply %T from the begin script", reply)
	}
	out := make(map[string]json.RawMessage, len(fields)/2)
	for i := 0; i < len(fields); i += 2 {
		key, ok1 := fields[i].(string)
		value, ok2 := fields[i+1].(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("store: begin response: the begin script answered a state field that is not a string")
		}
		out[key] = json.RawMessage(value)
	}
	return out, nil
}

// indexSession is the bookkeeping step that adds a session to its user's
// index.
func (s *Store) indexSession(ctx context.Context, user, session string) bookkeeping {
	return func(p redis.Pipeliner) { p.ZAdd(ctx, s.indexKey(user), redis.Z{Member: session}) }
}
