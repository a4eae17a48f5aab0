package storetest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testMemory is the contract of long-term memory: items kept per agent
// and user, in namespaces, paged, searched, expiring.
func testMemory(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"RoundTrip":            memoryRoundTrip,
		"UpsertKeepsCreatedAt": memoryUpsertKeepsCreatedAt,
		"TTLExpiry":            memoryTTLExpiry,
		"ListPages":            memoryListPages,
		"KeywordSearch":        memoryKeywordSearch,
		"EmbeddingSearch":      memoryEmbeddingSearch,
		"ScopesAreIsolated":    memoryScopesAreIsolated,
		"DeleteUnindexes":      memoryDeleteUnindexes,
		"OddNamespacesAndKeys": memoryOddNamespacesAndKeys,
		"RanksLikeAReference":  memoryRanksLikeAReference,
	})
}

var (
	memT0    = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	memAlice = store.MemoryScope{Agent: "helper", User: "alice"}
	memBob   = store.MemoryScope{Agent: "helper", User: "bob"}
)

func memItem(sc store.MemoryScope, ns, key, value, text string) store.MemoryItem {
	return store.MemoryItem{Scope: sc, Namespace: ns, Key: key, Value: json.RawMessage(value), Text: text}
}

func mustPutMemory(t *testing.T, s store.Store, it store.MemoryItem, now time.Time) store.MemoryItem {
	t.Helper()
	got, err := s.PutMemory(ctx, it, now)
	if err != nil {
		t.Fatalf("PutMemory(%s/%s): %v", it.Namespace, it.Key, err)
	}
	return got
}

func mustSearchMemory(t *testing.T, s store.Store, sc store.MemoryScope, q store.MemoryQuery, now time.Time) []store.MemoryHit {
	t.Helper()
	hits, err := s.SearchMemory(ctx, sc, q, now)
	if err != nil {
		t.Fatalf("SearchMemory(%q): %v", q.Text, err)
	}
	return hits
}

func hitKeys(hits []store.MemoryHit) []string {
	keys := []string{}
	for _, h := range hits {
		keys = append(keys, h.Item.Namespace+"/"+h.Item.Key)
	}
	return keys
}

func memoryRoundTrip(t *testing.T, s store.Store) {
	put := mustPutMemory(t, s, memItem(memAlice, "prefs", "color", `{"favorite":"green","shade":[1,2]}`, "likes green"), memT0)
	if !put.CreatedAt.Equal(memT0) || !put.UpdatedAt.Equal(memT0) || !put.ExpiresAt.IsZero() || put.Scope != memAlice {
		t.Fatalf("put returned %+v", put)
	}
	got, found, err := s.GetMemory(ctx, memAlice, "prefs", "color", memT0.Add(time.Hour))
	if err != nil || !found {
		t.Fatalf("GetMemory: found=%v err=%v", found, err)
	}
	if got.Namespace != "prefs" || got.Key != "color" || got.Text != "likes green" || !got.CreatedAt.Equal(memT0) {
		t.Fatalf("got %+v", got)
	}
	var v struct {
		Favorite string `json:"favorite"`
		Shade    []int  `json:"shade"`
	}
	if err := json.Unmarshal(got.Value, &v); err != nil || v.Favorite != "green" || len(v.Shade) != 2 {
		t.Fatalf("value %s: %v", got.Value, err)
	}
	if _, found, _ := s.GetMemory(ctx, memAlice, "prefs", "size", memT0); found {
		t.Fatal("an item never put was found")
	}
	if _, found, _ := s.GetMemory(ctx, memAlice, "other", "color", memT0); found {
		t.Fatal("an item was found in another namespace")
	}
	found, err = s.DeleteMemory(ctx, memAlice, "prefs", "color", memT0)
	if err != nil || !found {
		t.Fatalf("DeleteMemory: found=%v err=%v", found, err)
	}
	if _, found, _ := s.GetMemory(ctx, memAlice, "prefs", "color", memT0); found {
		t.Fatal("a deleted item was found")
	}
	if found, _ := s.DeleteMemory(ctx, memAlice, "prefs", "color", memT0); found {
		t.Fatal("a deleted item was deleted again")
	}
}

func memoryUpsertKeepsCreatedAt(t *testing.T, s store.Store) {
	mustPutMemory(t, s, memItem(memAlice, "n", "k", `1`, "first"), memT0)
	later := memT0.Add(time.Minute)
	put := mustPutMemory(t, s, memItem(memAlice, "n", "k", `2`, "second"), later)
	if !put.CreatedAt.Equal(memT0) || !put.UpdatedAt.Equal(later) || string(put.Value) != "2" {
		t.Fatalf("upsert returned %+v", put)
	}
	if hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "first", Limit: 10}, later); len(hits) != 0 {
		t.Fatalf("the replaced text is still found: %v", hitKeys(hits))
	}
	if hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "second", Limit: 10}, later); len(hits) != 1 {
		t.Fatalf("the new text is not found: %v", hitKeys(hits))
	}
}

func memoryTTLExpiry(t *testing.T, s store.Store) {
	short := memItem(memAlice, "n", "short", `"soon gone"`, "ephemeral note")
	short.ExpiresAt = memT0.Add(time.Minute)
	mustPutMemory(t, s, short, memT0)
	mustPutMemory(t, s, memItem(memAlice, "n", "long", `"stays"`, "ephemeral forever"), memT0)
	before, after := memT0.Add(59*time.Second), memT0.Add(time.Minute)
	if it, found, _ := s.GetMemory(ctx, memAlice, "n", "short", before); !found || !it.ExpiresAt.Equal(short.ExpiresAt) {
		t.Fatalf("before its TTL: found=%v %+v", found, it)
	}
	if hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "ephemeral", Limit: 10}, before); len(hits) != 2 {
		t.Fatalf("before the TTL the search found %v", hitKeys(hits))
	}
	if _, found, _ := s.GetMemory(ctx, memAlice, "n", "short", after); found {
		t.Fatal("an expired item was read")
	}
	items, err := s.ListMemory(ctx, memAlice, "n", "", 10, after)
	if err != nil || len(items) != 1 || items[0].Key != "long" {
		t.Fatalf("after the TTL the list is %+v (%v)", items, err)
	}
	if hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "ephemeral", Limit: 10}, after); len(hits) != 1 || hits[0].Item.Key != "long" {
		t.Fatalf("after the TTL the search found %v", hitKeys(hits))
	}
	// The expired item was cleaned: putting it again makes a new item.
	again := mustPutMemory(t, s, memItem(memAlice, "n", "short", `"back"`, ""), after.Add(time.Second))
	if !again.CreatedAt.Equal(after.Add(time.Second)) {
		t.Fatalf("an item put over an expired one kept its createdAt: %+v", again)
	}
	if found, _ := s.DeleteMemory(ctx, memAlice, "n", "short", after.Add(time.Second)); !found {
		t.Fatal("the item put again was not deleted")
	}
}

func memoryListPages(t *testing.T, s store.Store) {
	for i := 9; i >= 0; i-- {
		mustPutMemory(t, s, memItem(memAlice, "notes", fmt.Sprintf("k%02d", i), `true`, ""), memT0)
	}
	mustPutMemory(t, s, memItem(memAlice, "other", "k00", `true`, ""), memT0)
	var keys []string
	after := ""
	for pages := 0; pages < 10; pages++ {
		items, err := s.ListMemory(ctx, memAlice, "notes", after, 4, memT0)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			keys = append(keys, it.Key)
		}
		if len(items) < 4 {
			break
		}
		after = items[len(items)-1].Key
	}
	if fmt.Sprint(keys) != "[k00 k01 k02 k03 k04 k05 k06 k07 k08 k09]" {
		t.Fatalf("pages gave %v", keys)
	}
	if items, _ := s.ListMemory(ctx, memAlice, "empty", "", 4, memT0); len(items) != 0 {
		t.Fatalf("an empty namespace listed %d items", len(items))
	}
}

func memoryKeywordSearch(t *testing.T, s store.Store) {
	mustPutMemory(t, s, memItem(memAlice, "facts", "pet", `{"kind":"dog","name":"Rex"}`, "Alice has a dog"), memT0)
	mustPutMemory(t, s, memItem(memAlice, "facts", "home", `"Lisbon"`, "Alice lives in Lisbon, near the sea"), memT0)
	mustPutMemory(t, s, memItem(memAlice, "facts", "food", `"pasta"`, "favourite dish: pasta with dog-shaped noodles"), memT0)
	mustPutMemory(t, s, memItem(memAlice, "trips", "2025", `"Porto"`, "a trip to Porto by the sea"), memT0)
	hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "Which DOG does she have? Rex!", Limit: 10}, memT0)
	if len(hits) != 2 || hits[0].Item.Key != "pet" || hits[0].Score <= hits[1].Score || hits[1].Item.Key != "food" {
		t.Fatalf("search dog/rex found %v %v", hitKeys(hits), hits)
	}
	// pet has "dog" and "rex", food "dog": each word adds its weight,
	// the rarer the more (store.MemoryTokenWeight).
	if want := store.MemoryTokenWeight(4, 2) + store.MemoryTokenWeight(4, 1); !closeTo(hits[0].Score, want) || !closeTo(hits[1].Score, store.MemoryTokenWeight(4, 2)) {
		t.Fatalf("scores %v and %v, want %v and %v", hits[0].Score, hits[1].Score, want, store.MemoryTokenWeight(4, 2))
	}
	hits = mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "sea", Limit: 10}, memT0)
	if len(hits) != 2 {
		t.Fatalf("search sea found %v", hitKeys(hits))
	}
	hits = mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "sea", Namespace: "trips", Limit: 10}, memT0)
	if len(hits) != 1 || hits[0].Item.Key != "2025" {
		t.Fatalf("search sea in trips found %v", hitKeys(hits))
	}
	hits = mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "sea lisbon", Limit: 1}, memT0)
	if len(hits) != 1 || hits[0].Item.Key != "home" || !closeTo(hits[0].Score, store.MemoryTokenWeight(4, 2)+store.MemoryTokenWeight(4, 1)) {
		t.Fatalf("search sea lisbon (limit 1) found %v %v", hitKeys(hits), hits)
	}
	if hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "nothing matches", Limit: 10}, memT0); len(hits) != 0 {
		t.Fatalf("a query with no match found %v", hitKeys(hits))
	}
	if hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "!? ,", Limit: 10}, memT0); len(hits) != 0 {
		t.Fatalf("a query with no tokens found %v", hitKeys(hits))
	}
}

func memoryEmbeddingSearch(t *testing.T, s store.Store) {
	put := func(key string, v ...float32) {
		it := memItem(memAlice, "v", key, `null`, key)
		it.Embedding = v
		mustPutMemory(t, s, it, memT0)
	}
	put("east", 1, 0, 0)
	put("north", 0, 1, 0)
	put("northeast", 1, 1, 0)
	mustPutMemory(t, s, memItem(memAlice, "v", "plain", `null`, "no vector"), memT0)
	hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Embedding: []float32{0.9, 0.1, 0}, Limit: 2}, memT0)
	if fmt.Sprint(hitKeys(hits)) != "[v/east v/northeast]" || hits[0].Score <= hits[1].Score || hits[0].Score > 1.0000001 {
		t.Fatalf("semantic search found %v %v", hitKeys(hits), hits)
	}
	if hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Embedding: []float32{1, 0, 0}, Namespace: "w", Limit: 5}, memT0); len(hits) != 0 {
		t.Fatalf("semantic search of another namespace found %v", hitKeys(hits))
	}
}

func memoryScopesAreIsolated(t *testing.T, s store.Store) {
	mustPutMemory(t, s, memItem(memAlice, "secrets", "pin", `"1234"`, "alice's bank pin"), memT0)
	other := store.MemoryScope{Agent: "other-agent", User: "alice"}
	for _, sc := range []store.MemoryScope{memBob, other} {
		if _, found, _ := s.GetMemory(ctx, sc, "secrets", "pin", memT0); found {
			t.Fatalf("%+v read alice's item", sc)
		}
		if items, _ := s.ListMemory(ctx, sc, "secrets", "", 10, memT0); len(items) != 0 {
			t.Fatalf("%+v listed alice's items", sc)
		}
		if hits := mustSearchMemory(t, s, sc, store.MemoryQuery{Text: "bank pin", Limit: 10}, memT0); len(hits) != 0 {
			t.Fatalf("%+v found alice's items: %v", sc, hitKeys(hits))
		}
		if found, _ := s.DeleteMemory(ctx, sc, "secrets", "pin", memT0); found {
			t.Fatalf("%+v deleted alice's item", sc)
		}
	}
	mustPutMemory(t, s, memItem(memBob, "secrets", "pin", `"9999"`, "bob's bank pin"), memT0)
	got, found, _ := s.GetMemory(ctx, memAlice, "secrets", "pin", memT0)
	if !found || string(got.Value) != `"1234"` {
		t.Fatalf("bob's put changed alice's item: %+v", got)
	}
	hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "bank pin", Limit: 10}, memT0)
	if len(hits) != 1 || string(hits[0].Item.Value) != `"1234"` || hits[0].Item.Scope != memAlice {
		t.Fatalf("alice's search found %v", hits)
	}
}

func memoryDeleteUnindexes(t *testing.T, s store.Store) {
	mustPutMemory(t, s, memItem(memAlice, "n", "a", `"x"`, "unique zebra"), memT0)
	if _, err := s.DeleteMemory(ctx, memAlice, "n", "a", memT0); err != nil {
		t.Fatal(err)
	}
	if hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "zebra", Limit: 10}, memT0); len(hits) != 0 {
		t.Fatalf("a deleted item was found: %v", hitKeys(hits))
	}
	if items, _ := s.ListMemory(ctx, memAlice, "n", "", 10, memT0); len(items) != 0 {
		t.Fatalf("a deleted item was listed: %+v", items)
	}
}

func memoryOddNamespacesAndKeys(t *testing.T, s store.Store) {
	odd := []store.MemoryItem{
		memItem(memAlice, "a:b", "c", `1`, "odd one"),
		memItem(memAlice, "a", "b:c", `2`, "odd two"),
		memItem(memAlice, "{x}", "%y% {z}", `3`, "odd three"),
	}
	for _, it := range odd {
		mustPutMemory(t, s, it, memT0)
	}
	for _, it := range odd {
		got, found, err := s.GetMemory(ctx, memAlice, it.Namespace, it.Key, memT0)
		if err != nil || !found || string(got.Value) != string(it.Value) || got.Namespace != it.Namespace || got.Key != it.Key {
			t.Fatalf("get %q/%q: %+v found=%v err=%v", it.Namespace, it.Key, got, found, err)
		}
		items, _ := s.ListMemory(ctx, memAlice, it.Namespace, "", 10, memT0)
		if len(items) != 1 || items[0].Key != it.Key {
			t.Fatalf("list %q: %+v", it.Namespace, items)
		}
	}
	if hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: "odd", Limit: 10}, memT0); len(hits) != 3 {
		t.Fatalf("search odd found %v", hitKeys(hits))
	}
	evil := store.MemoryScope{Agent: "helper:alice", User: ""}
	if hits := mustSearchMemory(t, s, evil, store.MemoryQuery{Text: "odd", Limit: 10}, memT0); len(hits) != 0 {
		t.Fatalf("a scope named to collide found %v", hitKeys(hits))
	}
}

func closeTo(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// memoryRanksLikeAReference checks keyword search against a plain
// reference (every item scored by the sum of the weights of the query's
// tokens it has) on 400 items of Zipf-drawn words and 60 queries, in
// every namespace and in one: the same scores, best first.
func memoryRanksLikeAReference(t *testing.T, s store.Store) {
	words := newBenchWords(7)
	var items []store.MemoryItem
	for i := range 400 {
		it := memItem(memAlice, fmt.Sprintf("ns%d", i%3), fmt.Sprintf("k%03d", i), `null`, words.text(6))
		mustPutMemory(t, s, it, memT0)
		items = append(items, it)
	}
	df := map[string]int{}
	for _, it := range items {
		for _, tk := range store.MemoryTokens(it) {
			df[tk]++
		}
	}
	queries := newBenchWords(8)
	for q := range 60 {
		text, ns := queries.text(1+q%4), ""
		if q%3 == 0 {
			ns = "ns1"
		}
		var want []float64
		for _, it := range items {
			if ns != "" && it.Namespace != ns {
				continue
			}
			has := map[string]bool{}
			for _, tk := range store.MemoryTokens(it) {
				has[tk] = true
			}
			score := 0.0
			for _, tk := range store.QueryTokens(text) {
				if has[tk] {
					score += store.MemoryTokenWeight(len(items), df[tk])
				}
			}
			if score > 0 {
				want = append(want, score)
			}
		}
		slices.SortFunc(want, func(a, b float64) int { return cmp.Compare(b, a) })
		want = want[:min(len(want), 5)]
		hits := mustSearchMemory(t, s, memAlice, store.MemoryQuery{Text: text, Namespace: ns, Limit: 5}, memT0)
		if len(hits) != len(want) {
			t.Fatalf("query %q in %q: %d hits, want %d", text, ns, len(hits), len(want))
		}
		for i, h := range hits {
			if !closeTo(h.Score, want[i]) || (ns != "" && h.Item.Namespace != ns) {
				t.Fatalf("query %q in %q: hit %d is %s/%s scoring %v, want a score of %v", text, ns, i, h.Item.Namespace, h.Item.Key, h.Score, want[i])
			}
		}
	}
}
