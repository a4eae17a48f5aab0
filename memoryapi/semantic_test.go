package memoryapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// fakeEmbeddings is an OpenAI-compatible embeddings endpoint on loopback:
// a text's vector counts its words about animals, places and food, so
// "pet" is near "dog" though they share no word.
type fakeEmbeddings struct {
	mu    sync.Mutex
	auth  []string
	fails bool
}

var topics = [][]string{
	{"dog", "cat", "pet", "animal", "puppy"},
	{"lisbon", "city", "home", "lives", "where"},
	{"pasta", "food", "dish", "eat", "dinner"},
}

func (f *fakeEmbeddings) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Model string `json:"model"`
			Input string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&in) != nil || in.Model != "embed-test" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		fails := f.fails
		f.mu.Unlock()
		if fails {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		v := make([]float32, len(topics))
		for _, w := range strings.FieldsFunc(strings.ToLower(in.Input), func(r rune) bool { return r < 'a' || r > 'z' }) {
			for i, words := range topics {
				for _, x := range words {
					if w == x {
						v[i]++
					}
				}
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []map[string]any{{"index": 0, "embedding": v}}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestMemorySemanticSearch(t *testing.T) {
	t.Setenv("HARNEST_TEST_EMBED_KEY", "emb-secret-key")
	{
		fake := &fakeEmbeddings{}
		url := fake.start(t)
		setup := servertest.Setup{Config: func(c *config.Config) {
			withUsers.Config(c)
			c.Spec.Memory.Embeddings = &config.Embeddings{URL: url, Model: "embed-test", APIKeyEnv: "HARNEST_TEST_EMBED_KEY"}
		}}
		servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
			bob, carol := ts.As(bobToken), ts.As(carolToken)
			servertest.MustStatus(t, put(bob, "/memory/facts/pet", `{"value":"Rex","text":"Bob has a dog called Rex"}`), 200)
			servertest.MustStatus(t, put(bob, "/memory/facts/home", `{"value":"Lisbon","text":"Bob lives in Lisbon"}`), 200)
			servertest.MustStatus(t, put(bob, "/memory/facts/food", `{"value":"pasta","text":"Bob's favourite dish is pasta"}`), 200)
			servertest.MustStatus(t, put(carol, "/memory/facts/pet", `{"value":"Tom","text":"Carol has a cat"}`), 200)

			r := bob.Post("/memory/search", `{"query":"what pet animal?","limit":2}`)
			servertest.MustStatus(t, r, 200)
			p := decode[page](t, r)
			if p.Search != "semantic" || len(p.Items) != 2 || p.Items[0].Key != "pet" || string(p.Items[0].Value) != `"Rex"` || *p.Items[0].Score < 0.99 || *p.Items[1].Score > 0.01 {
				t.Fatalf("bob's semantic search answered %s", r.Body)
			}
			r = carol.Post("/memory/search", `{"query":"where does she live?"}`)
			servertest.MustStatus(t, r, 200)
			for _, it := range decode[page](t, r).Items {
				if string(it.Value) != `"Tom"` {
					t.Fatalf("carol found bob's item: %s", r.Body)
				}
			}
			fake.mu.Lock()
			for _, a := range fake.auth {
				if a != "Bearer emb-secret-key" {
					t.Errorf("the endpoint got Authorization %q", a)
				}
			}
			fake.fails = true
			fake.mu.Unlock()
			// The endpoint down: 502, and nothing is stored.
			r = put(bob, "/memory/facts/car", `{"value":"none"}`)
			if r.Status != 502 || decode[map[string]any](t, r)["code"] != "embeddings_unavailable" || strings.Contains(string(r.Body), "emb-secret-key") {
				t.Fatalf("put with the endpoint down: %d %s", r.Status, r.Body)
			}
			servertest.MustStatus(t, bob.Get("/memory/facts/car"), 404)
			fake.mu.Lock()
			fake.fails = false
			fake.mu.Unlock()
		})
	}
}
