package memstore

import (
	"context"
	"time"

	"github.com/harnest/harnest/store"
)

// SearchMemory ranks a scope's live items by keyword or by embedding:
// scores are summed in a dense array by item number, and the best
// q.Limit kept as they come.
func (s *memorySpace) SearchMemory(ctx context.Context, sc store.MemoryScope, q store.MemoryQuery, now time.Time) ([]store.MemoryHit, error) {
	m, err := s.lockScope(sc, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if m == nil || q.Limit < 1 {
		return nil, nil
	}
	m.sweep(now)
	scores := make([]float64, len(m.byID))
	var touched []int32
	if len(q.Embedding) > 0 {
		for _, it := range m.byID {
			if it != nil && len(it.item.Embedding) > 0 && (q.Namespace == "" || it.item.Namespace == q.Namespace) {
				scores[it.id] = store.Cosine(q.Embedding, it.item.Embedding)
				touched = append(touched, it.id)
			}
		}
	} else {
		n := len(m.items)
		for _, tk := range store.QueryTokens(q.Text) {
			p := m.postings[tk]
			w := store.MemoryTokenWeight(n, len(p))
			for _, id := range p {
				if scores[id] == 0 {
					touched = append(touched, id)
				}
				scores[id] += w
			}
		}
	}
	// The best q.Limit numbers, best first, kept by insertion (q.Limit
	// is small); a hit is built only for them.
	best := make([]int32, 0, q.Limit)
	better := func(a, b int32) bool {
		if scores[a] != scores[b] {
			return scores[a] > scores[b]
		}
		x, y := &m.byID[a].item, &m.byID[b].item
		if x.Namespace != y.Namespace {
			return x.Namespace < y.Namespace
		}
		return x.Key < y.Key
	}
	for _, id := range touched {
		it := &m.byID[id].item
		if (q.Namespace != "" && it.Namespace != q.Namespace) || (len(best) == q.Limit && !better(id, best[len(best)-1])) || !it.Live(now) {
			continue
		}
		i := len(best)
		for i > 0 && better(id, best[i-1]) {
			i--
		}
		if len(best) < q.Limit {
			best = append(best, 0)
		}
		copy(best[i+1:], best[i:len(best)-1])
		best[i] = id
	}
	hits := make([]store.MemoryHit, len(best))
	for i, id := range best {
		hits[i] = store.MemoryHit{Item: copyItem(sc, m.byID[id].item), Score: scores[id]}
	}
	return hits, nil
}
