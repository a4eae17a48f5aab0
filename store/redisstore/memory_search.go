package redisstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// searchMemoryScript ranks by keyword. KEYS: T:i. ARGV: T, now ms, limit,
// escaped namespace ("": every namespace), then the query's tokens. The
// postings of every token in every namespace searched are summed (with
// weight -1, so that ZRANGE gives the most tokens first and ties by
// field) into T:q, read in order skipping expired items, and T:q is
// deleted. It returns item JSON and score, pairwise.
var searchMemoryScript = redis.NewScript(memoryLua + `
local T, now, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
sweep(T, now)
local nss
if ARGV[4] ~= '' then nss = {ARGV[4]} else nss = redis.call('SMEMBERS', T .. ':s') end
local args = {}
for _, ens in ipairs(nss) do
  for i = 5, #ARGV do args[#args + 1] = T .. ':t:' .. ens .. ':' .. ARGV[i] end
end
if #args == 0 then return {} end
local n = #args
args[#args + 1] = 'WEIGHTS'
for _ = 1, n do args[#args + 1] = -1 end
local q = T .. ':q'
redis.call('ZUNIONSTORE', q, n, unpack(args))
local out, from = {}, 0
while #out < 2 * limit do
  local fs = redis.call('ZRANGE', q, from, from + 2 * limit - 1, 'WITHSCORES')
  if #fs == 0 then break end
  for i = 1, #fs, 2 do
    if live(T, fs[i], now) then
      local item = redis.call('HGET', T .. ':i', fs[i])
      if item then
        out[#out + 1] = item
        out[#out + 1] = fs[i + 1]
        if #out == 2 * limit then break end
      end
    end
  end
  from = from + 2 * limit
end
redis.call('DEL', q)
return out
`)

// SearchMemory ranks a scope's live items: by keyword in one script; by
// embedding with a scan of the scope's embeddings (HSCAN) and one HMGET of
// the best.
func (s *Store) SearchMemory(ctx context.Context, sc store.MemoryScope, q store.MemoryQuery, now time.Time) ([]store.MemoryHit, error) {
	if q.Limit < 1 {
		return nil, nil
	}
	if len(q.Embedding) > 0 {
		return s.searchByEmbedding(ctx, sc, q, now)
	}
	tokens := store.QueryTokens(q.Text)
	if len(tokens) == 0 {
		return nil, nil
	}
	T := s.memoryTag(sc)
	ns := ""
	if q.Namespace != "" {
		ns = escapeID(q.Namespace)
	}
	args := []any{T, now.UnixMilli(), q.Limit, ns}
	for _, tk := range tokens {
		args = append(args, tk)
	}
	pairs, err := searchMemoryScript.Run(ctx, s.rdb, []string{T + ":i"}, args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("store: search memory: %w", err)
	}
	hits := make([]store.MemoryHit, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		it, err := itemOf(sc, pairs[i])
		if err != nil {
			return nil, err
		}
		hits = append(hits, store.MemoryHit{Item: it, Score: -parseScore(pairs[i+1])})
	}
	return hits, nil
}

// searchByEmbedding scores every embedding of the scope (of the
// namespace, when set) and reads the best live items.
func (s *Store) searchByEmbedding(ctx context.Context, sc store.MemoryScope, q store.MemoryQuery, now time.Time) ([]store.MemoryHit, error) {
	T := s.memoryTag(sc)
	prefix := ""
	if q.Namespace != "" {
		prefix = escapeID(q.Namespace) + ":"
	}
	type scored struct {
		f     string
		score float64
	}
	var all []scored
	var cursor uint64
	for {
		kv, next, err := s.rdb.HScan(ctx, T+":v", cursor, "", 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("store: search memory: %w", err)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if strings.HasPrefix(kv[i], prefix) {
				all = append(all, scored{kv[i], store.Cosine(q.Embedding, decodeVector(kv[i+1]))})
			}
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].f < all[j].f
	})
	var hits []store.MemoryHit
	for len(all) > 0 && len(hits) < q.Limit {
		batch := all[:min(len(all), 2*q.Limit)]
		all = all[len(batch):]
		fields := make([]string, len(batch))
		for i, b := range batch {
			fields[i] = b.f
		}
		raws, err := s.rdb.HMGet(ctx, T+":i", fields...).Result()
		if err != nil && err != redis.Nil {
			return nil, fmt.Errorf("store: search memory: %w", err)
		}
		for i, raw := range raws {
			str, ok := raw.(string)
			if !ok {
				continue
			}
			it, err := itemOf(sc, str)
			if err != nil {
				return nil, err
			}
			if it.Live(now) && len(hits) < q.Limit {
				hits = append(hits, store.MemoryHit{Item: it, Score: batch[i].score})
			}
		}
	}
	return hits, nil
}

// encodeVector is an embedding as float32 little-endian bytes ("" for
// none).
func encodeVector(v []float32) string {
	if len(v) == 0 {
		return ""
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return string(b)
}

func decodeVector(s string) []float32 {
	v := make([]float32, len(s)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32([]byte(s[4*i : 4*i+4])))
	}
	return v
}
