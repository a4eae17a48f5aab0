package storetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// Memory search at scale: one user's memory of n items, each a note of 12
// words drawn from a vocabulary of 5000 with a Zipf law (as words are),
// searched with 3-word queries drawn the same way. Queries are timed one
// by one; the figure is the median (p50-ms) beside ns/op.

const benchVocabulary = 5000

// benchWords draws words: w<rank>, the small ranks far more often.
type benchWords struct{ z *rand.Zipf }

func newBenchWords(seed uint64) benchWords {
	return benchWords{z: rand.NewZipf(rand.New(rand.NewPCG(seed, seed+1)), 1.1, 2, benchVocabulary-1)}
}

func (w benchWords) text(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", w.z.Uint64())
	}
	return strings.Join(words, " ")
}

// FillMemory puts n items into scope, from workers goroutines at once.
func FillMemory(b testing.TB, s store.Store, scope store.MemoryScope, n, workers int) {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	now := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			words := newBenchWords(uint64(w + 1))
			for i := w; i < n; i += workers {
				text := words.text(12)
				value, _ := json.Marshal(map[string]any{"note": i})
				it := store.MemoryItem{Scope: scope, Namespace: fmt.Sprintf("ns%d", i%4), Key: fmt.Sprintf("item-%06d", i), Value: value, Text: text}
				if _, err := s.PutMemory(ctx, it, now); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatalf("fill memory: %v", err)
	}
}

// BenchMemorySearch times keyword searches (limit 10) of a scope that
// FillMemory filled, and reports their median.
func BenchMemorySearch(b *testing.B, s store.Store, scope store.MemoryScope) {
	words := newBenchWords(99)
	queries := make([]string, 256)
	for i := range queries {
		queries[i] = words.text(3)
	}
	durations := make([]time.Duration, 0, b.N)
	now := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		hits, err := s.SearchMemory(ctx, scope, store.MemoryQuery{Text: queries[i%len(queries)], Limit: 10}, now)
		durations = append(durations, time.Since(start))
		if err != nil || len(hits) == 0 {
			b.Fatalf("search %q: %d hits, %v", queries[i%len(queries)], len(hits), err)
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
}
