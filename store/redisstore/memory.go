package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// Memory lives under one hash tag per scope, {m:<agent>:<user>} (T), so
// that every script touches one slot (also on Redis Cluster). An item's
// field <f> is <ns>:<key>, the namespace escaped (escapeID: no ':'), the
// key as it is:
//
//   - T:i             HASH <f> -> the item's JSON, "createdAt" first
//   - T:k             HASH <f> -> the item's tokens, space-separated
//   - T:v             HASH <f> -> the item's embedding, float32 little-endian
//   - T:e             ZSET <f> by expiry (Unix ms), items with a TTL only
//   - T:s             SET  the scope's namespaces (escaped)
//   - T:n:<ns>        ZSET the namespace's keys, score 0 (listed by lex)
//   - T:t:<ns>:<tok>  ZSET <f>, score 1: the namespace's items with a token
//   - T:q             ZSET a search's scratch, deleted by the same script
//
// The scripts build the keys from T (all in its slot) and drop up to
// store.MemorySweep expired items of the scope first (memoryLua).

func (s *Store) memoryTag(sc store.MemoryScope) string {
	return s.prefix + "{m:" + escapeID(sc.Agent) + ":" + escapeID(sc.User) + "}"
}

func memoryField(namespace, key string) string { return escapeID(namespace) + ":" + key }

// memoryLua is the scripts' shared part: drop an item with its index
// entries, and sweep the expired ones.
const memoryLua = `
local function drop(T, f)
  local c = string.find(f, ':', 1, true)
  local ens, key = string.sub(f, 1, c - 1), string.sub(f, c + 1)
  local tks = redis.call('HGET', T .. ':k', f)
  if tks then
    for tk in string.gmatch(tks, '%S+') do redis.call('ZREM', T .. ':t:' .. ens .. ':' .. tk, f) end
  end
  redis.call('ZREM', T .. ':n:' .. ens, key)
  if redis.call('EXISTS', T .. ':n:' .. ens) == 0 then redis.call('SREM', T .. ':s', ens) end
  redis.call('HDEL', T .. ':i', f)
  redis.call('HDEL', T .. ':k', f)
  redis.call('HDEL', T .. ':v', f)
  redis.call('ZREM', T .. ':e', f)
end
local function sweep(T, now)
  for _, f in ipairs(redis.call('ZRANGEBYSCORE', T .. ':e', '-inf', now, 'LIMIT', 0, ` + "100" + `)) do drop(T, f) end
end
local function live(T, f, now)
  local exp = redis.call('ZSCORE', T .. ':e', f)
  return (not exp) or tonumber(exp) > now
end
`

// putMemoryScript. KEYS: T:i. ARGV: T, now ms, escaped namespace, key,
// the item's JSON after its createdAt, createdAt (now), tokens, expiry ms
// (0: none), embedding ("": none). It returns the item's JSON.
var putMemoryScript = redis.NewScript(memoryLua + `
local T, now, ens, key = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
sweep(T, now)
local f = ens .. ':' .. key
local created = ARGV[6]
local old = redis.call('HGET', T .. ':i', f)
if old then
  if live(T, f, now) then created = string.match(old, '^{"createdAt":"([^"]*)"') or created end
  drop(T, f)
end
local item = '{"createdAt":"' .. created .. '",' .. ARGV[5]
redis.call('HSET', T .. ':i', f, item)
if ARGV[7] ~= '' then
  redis.call('HSET', T .. ':k', f, ARGV[7])
  for tk in string.gmatch(ARGV[7], '%S+') do redis.call('ZADD', T .. ':t:' .. ens .. ':' .. tk, 1, f) end
end
redis.call('ZADD', T .. ':n:' .. ens, 0, key)
redis.call('SADD', T .. ':s', ens)
if ARGV[8] ~= '0' then redis.call('ZADD', T .. ':e', ARGV[8], f) end
if ARGV[9] ~= '' then redis.call('HSET', T .. ':v', f, ARGV[9]) end
return item
`)

// memoryRecord is an item's JSON in T:i; CreatedAt must stay first.
type memoryRecord struct {
	CreatedAt time.Time       `json:"createdAt"`
	UpdatedAt time.Time       `json:"updatedAt"`
	Namespace string          `json:"namespace"`
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	Text      string          `json:"text,omitempty"`
	ExpiresAt time.Time       `json:"expiresAt,omitzero"`
}

func itemOf(sc store.MemoryScope, raw string) (store.MemoryItem, error) {
	var r memoryRecord
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return store.MemoryItem{}, fmt.Errorf("store: a memory item is not the JSON it should be: %w", err)
	}
	return store.MemoryItem{Scope: sc, Namespace: r.Namespace, Key: r.Key, Value: r.Value, Text: r.Text,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ExpiresAt: r.ExpiresAt}, nil
}

// PutMemory stores an item: one script.
func (s *Store) PutMemory(ctx context.Context, item store.MemoryItem, now time.Time) (store.MemoryItem, error) {
	now = now.UTC().Truncate(time.Millisecond)
	value := item.Value
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	rec := memoryRecord{CreatedAt: now, UpdatedAt: now, Namespace: item.Namespace, Key: item.Key, Value: value, Text: item.Text,
		ExpiresAt: item.ExpiresAt.UTC().Truncate(time.Millisecond)}
	b, err := json.Marshal(rec)
	if err != nil {
		return store.MemoryItem{}, fmt.Errorf("store: put memory: %w", err)
	}
	created, _ := json.Marshal(now)
	body := string(b[len(`{"createdAt":`)+len(created)+1:]) // after `{"createdAt":"…",`
	T := s.memoryTag(item.Scope)
	raw, err := putMemoryScript.Run(ctx, s.rdb, []string{T + ":i"}, T, now.UnixMilli(), escapeID(item.Namespace), item.Key,
		body, strings.Trim(string(created), `"`), strings.Join(store.MemoryTokens(item), " "), unixMillis(rec.ExpiresAt),
		encodeVector(item.Embedding)).Text()
	if err != nil {
		return store.MemoryItem{}, fmt.Errorf("store: put memory: %w", err)
	}
	return itemOf(item.Scope, raw)
}

// GetMemory reads one live item: one HGET.
func (s *Store) GetMemory(ctx context.Context, sc store.MemoryScope, namespace, key string, now time.Time) (store.MemoryItem, bool, error) {
	raw, err := s.rdb.HGet(ctx, s.memoryTag(sc)+":i", memoryField(namespace, key)).Result()
	if err == redis.Nil {
		return store.MemoryItem{}, false, nil
	}
	if err != nil {
		return store.MemoryItem{}, false, fmt.Errorf("store: get memory: %w", err)
	}
	it, err := itemOf(sc, raw)
	if err != nil || !it.Live(now) {
		return store.MemoryItem{}, false, err
	}
	return it, true, nil
}

// listMemoryScript. KEYS: T:i. ARGV: T, now ms, escaped namespace, after
// ("": from the first), limit. It returns the items' JSON.
var listMemoryScript = redis.NewScript(memoryLua + `
local T, now, ens, limit = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[5])
sweep(T, now)
local nk = T .. ':n:' .. ens
local start = '-'
if ARGV[4] ~= '' then start = '(' .. ARGV[4] end
local out = {}
while #out < limit do
  local keys = redis.call('ZRANGEBYLEX', nk, start, '+', 'LIMIT', 0, limit)
  if #keys == 0 then break end
  for _, k in ipairs(keys) do
    local f = ens .. ':' .. k
    if live(T, f, now) then
      local item = redis.call('HGET', T .. ':i', f)
      if item then out[#out + 1] = item end
      if #out == limit then break end
    end
  end
  start = '(' .. keys[#keys]
end
return out
`)

// ListMemory returns a page of a namespace's live items: one script.
func (s *Store) ListMemory(ctx context.Context, sc store.MemoryScope, namespace, after string, limit int, now time.Time) ([]store.MemoryItem, error) {
	if limit < 1 {
		return nil, nil
	}
	T := s.memoryTag(sc)
	raws, err := listMemoryScript.Run(ctx, s.rdb, []string{T + ":i"}, T, now.UnixMilli(), escapeID(namespace), after, limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("store: list memory: %w", err)
	}
	out := make([]store.MemoryItem, 0, len(raws))
	for _, raw := range raws {
		it, err := itemOf(sc, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// deleteMemoryScript. KEYS: T:i. ARGV: T, now ms, field. It returns 1
// when a live item was deleted.
var deleteMemoryScript = redis.NewScript(memoryLua + `
local T, now, f = ARGV[1], tonumber(ARGV[2]), ARGV[3]
sweep(T, now)
if redis.call('HEXISTS', T .. ':i', f) == 0 then return 0 end
local was = live(T, f, now)
drop(T, f)
if was then return 1 end
return 0
`)

// DeleteMemory removes an item: one script.
func (s *Store) DeleteMemory(ctx context.Context, sc store.MemoryScope, namespace, key string, now time.Time) (bool, error) {
	T := s.memoryTag(sc)
	n, err := deleteMemoryScript.Run(ctx, s.rdb, []string{T + ":i"}, T, now.UnixMilli(), memoryField(namespace, key)).Int()
	if err != nil {
		return false, fmt.Errorf("store: delete memory: %w", err)
	}
	return n == 1, nil
}

func parseScore(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
