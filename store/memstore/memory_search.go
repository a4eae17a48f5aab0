package memstore

import (
	"context"
	"sort"
	"time"

	"github.com/harnest/harnest/store"
)

// SearchMemory ranks a scope's live items by keyword or by embedding.
func (s *memorySpace) SearchMemory(ctx context.Context, sc store.MemoryScope, q store.MemoryQuery, now time.Time) ([]store.MemoryHit, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.scope(sc, false)
	if m == nil || q.Limit < 1 {
		return nil, nil
	}
	m.sweep(now)
	scores := map[memField]float64{}
	if len(q.Embedding) > 0 {
		for f, it := range m.items {
			if len(it.item.Embedding) > 0 && (q.Namespace == "" || f.ns == q.Namespace) {
				scores[f] = store.Cosine(q.Embedding, it.item.Embedding)
			}
		}
	} else {
		for _, tk := range store.QueryTokens(q.Text) {
			for f := range m.postings[tk] {
				if q.Namespace == "" || f.ns == q.Namespace {
					scores[f]++
				}
			}
		}
	}
	hits := make([]store.MemoryHit, 0, len(scores))
	for f, score := range scores {
		if it := m.items[f]; it.item.Live(now) {
			hits = append(hits, store.MemoryHit{Item: it.item, Score: score})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Item.Namespace != b.Item.Namespace {
			return a.Item.Namespace < b.Item.Namespace
		}
		return a.Item.Key < b.Item.Key
	})
	hits = hits[:min(len(hits), q.Limit)]
	for i := range hits {
		hits[i].Item = copyItem(sc, hits[i].Item)
	}
	return hits, nil
}
