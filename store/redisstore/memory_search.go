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
// Tokens are read rarest (heaviest) first (max-score): each posting adds
// its token's weight to its items' partial scores, and the walk stops
// once the limit-th best partial score is above the sum of the weights of
// the tokens left, the most an item not seen yet could score. Only the
// items seen that could still reach the best are completed (ZSCORE on the
// postings of the tokens left), and the best are picked by insertion
// (no sort), so common words cost little once rare ones found enough. Liveness is checked for every item seen when the
// scope has items with a TTL, else not at all. It returns item JSON and
// score, pairwise, the best first, ties by field.
var searchMemoryScript = redis.NewScript(memoryLua + `
local T, now, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
sweep(T, now)
local all = redis.call('SMEMBERS', T .. ':s')
local nss = all
if ARGV[4] ~= '' then nss = {ARGV[4]} end
local n = redis.call('HLEN', T .. ':i')
local ttl = redis.call('ZCARD', T .. ':e') > 0
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
local score, ns, seen = {}, {}, {}
local function better(a, b) if score[a] ~= score[b] then return score[a] > score[b] end return a < b end
-- topk: the best k of list, best first, kept by insertion (k is small).
local function topk(list, k)
  local best = {}
  for _, f in ipairs(list) do
    if #best < k or better(f, best[#best]) then
      local i = #best + 1
      while i > 1 and better(f, best[i - 1]) do best[i] = best[i - 1]; i = i - 1 end
      best[i] = f
      if #best > k then best[#best] = nil end
    end
  end
  return best
end
local done = 0
for i, t in ipairs(toks) do
  rest = rest - t.w
  done = i
  for _, ens in ipairs(nss) do
    for _, f in ipairs(redis.call('ZRANGE', T .. ':t:' .. ens .. ':' .. t.tok, 0, -1)) do
      local s = score[f]
      if s then
        score[f] = s + t.w
      elseif s == nil and (not ttl or live(T, f, now)) then
        score[f] = t.w
        ns[f] = ens
        seen[#seen + 1] = f
      elseif s == nil then
        score[f] = false
      end
    end
  end
  if #seen >= limit and i < #toks then
    local above = 0
    for _, f in ipairs(seen) do if score[f] > rest + 1e-9 then above = above + 1 end end
    if above >= limit then break end
  end
end
local finalists = seen
if done < #toks and #seen > 0 then
  local best = topk(seen, limit)
  local floor = score[best[#best]]
  finalists = {}
  for _, f in ipairs(seen) do
    if score[f] + rest + 1e-9 >= floor then
      for j = done + 1, #toks do
        if redis.call('ZSCORE', T .. ':t:' .. ns[f] .. ':' .. toks[j].tok, f) then score[f] = score[f] + toks[j].w end
      end
      finalists[#finalists + 1] = f
    end
  end
end
seen = topk(finalists, limit)
local out = {}
for i = 1, math.min(limit, #seen) do
  local item = redis.call('HGET', T .. ':i', seen[i])
  if item then
    out[#out + 1] = item
    out[#out + 1] = string.format('%.17g', score[seen[i]])
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
