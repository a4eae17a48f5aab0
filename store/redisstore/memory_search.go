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
// escaped namespace ("": every namespace), then the query's tokens. An
// item's score is the sum of the weights (store.MemoryTokenWeight, from
// the scope's item count and the token's) of the query's tokens it has.
// Tokens are read rarest (heaviest) first (max-score): each item of a
// token's postings that is new is scored in full (ZSCORE on the other
// tokens' postings) and the walk stops once the limit-th best live score
// is above the sum of the weights of the tokens left, which is the most
// an item not seen yet could score; so common words cost little once rare
// ones found enough. It returns item JSON and score, pairwise, the best
// first, ties by field.
var searchMemoryScript = redis.NewScript(memoryLua + `
local T, now, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
sweep(T, now)
local all = redis.call('SMEMBERS', T .. ':s')
local nss = all
if ARGV[4] ~= '' then nss = {ARGV[4]} end
local n = redis.call('HLEN', T .. ':i')
local toks, rest = {}, 0
for i = 5, #ARGV do
  local df = 0
  for _, ens in ipairs(all) do df = df + redis.call('ZCARD', T .. ':t:' .. ens .. ':' .. ARGV[i]) end
  if df > 0 then
    local w = math.log(1 + n / df)
    toks[#toks + 1] = {tok = ARGV[i], w = w}
    rest = rest + w
  end
end
table.sort(toks, function(a, b) if a.w ~= b.w then return a.w > b.w end return a.tok < b.tok end)
local seen, found = {}, {}
local function better(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return a[1] < b[1] end
for i, t in ipairs(toks) do
  rest = rest - t.w
  for _, ens in ipairs(nss) do
    for _, f in ipairs(redis.call('ZRANGE', T .. ':t:' .. ens .. ':' .. t.tok, 0, -1)) do
      if not seen[f] then
        seen[f] = true
        if live(T, f, now) then
          local score = t.w
          for j = i + 1, #toks do
            if redis.call('ZSCORE', T .. ':t:' .. ens .. ':' .. toks[j].tok, f) then score = score + toks[j].w end
          end
          found[#found + 1] = {f, score}
        end
      end
    end
  end
  if #found >= limit and i < #toks then
    table.sort(found, better)
    if found[limit][2] > rest + 1e-9 then break end
  end
end
table.sort(found, better)
local out = {}
for i = 1, math.min(limit, #found) do
  local item = redis.call('HGET', T .. ':i', found[i][1])
  if item then
    out[#out + 1] = item
    out[#out + 1] = string.format('%.17g', found[i][2])
  end
end
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
		hits = append(hits, store.MemoryHit{Item: it, Score: parseScore(pairs[i+1])})
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
