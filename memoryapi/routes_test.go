package memoryapi_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

const (
	aliceToken = "alice-token-0123456789" // the owner
	bobToken   = "bob-token-0123456789ab"
	carolToken = "carol-token-0123456789"
)

// withUsers serves alice (an owner), bob and carol.
var withUsers = servertest.Setup{Config: func(c *config.Config) {
	c.Auth.Tokens = []config.Token{
		{Token: aliceToken, User: "alice", Owner: true},
		{Token: bobToken, User: "bob"},
		{Token: carolToken, User: "carol"},
	}
}}

func decode[T any](t *testing.T, r servertest.Reply) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body %s: %v", r.Body, err)
	}
	return v
}

type item struct {
	Namespace string          `json:"namespace"`
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	Text      string          `json:"text"`
	CreatedAt time.Time       `json:"createdAt"`
	UpdatedAt time.Time       `json:"updatedAt"`
	ExpiresAt *time.Time      `json:"expiresAt"`
	Score     *float64        `json:"score"`
}

type page struct {
	Items      []item  `json:"items"`
	NextCursor *string `json:"nextCursor"`
	Search     string  `json:"search"`
}

func put(ts *servertest.Server, path, body string) servertest.Reply {
	return ts.Do("PUT", path, "application/json", []byte(body))
}

func TestMemoryRoundTrip(t *testing.T) {
	servertest.EachStore(t, withUsers, func(t *testing.T, ts *servertest.Server) {
		bob := ts.As(bobToken)
		r := put(bob, "/memory/prefs/color", `{"value":{"favorite":"green"},"text":"Bob likes green"}`)
		servertest.MustStatus(t, r, 200)
		it := decode[item](t, r)
		if it.Namespace != "prefs" || it.Key != "color" || string(it.Value) != `{"favorite":"green"}` || it.ExpiresAt != nil || it.CreatedAt.IsZero() {
			t.Fatalf("put answered %s", r.Body)
		}
		if r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
		}
		r = bob.Get("/memory/prefs/color")
		servertest.MustStatus(t, r, 200)
		if got := decode[item](t, r); string(got.Value) != `{"favorite":"green"}` || got.Text != "Bob likes green" {
			t.Fatalf("get answered %s", r.Body)
		}
		// An upsert keeps createdAt and replaces the value.
		r = put(bob, "/memory/prefs/color", `{"value":"blue"}`)
		servertest.MustStatus(t, r, 200)
		if got := decode[item](t, r); string(got.Value) != `"blue"` || !got.CreatedAt.Equal(it.CreatedAt) {
			t.Fatalf("upsert answered %s", r.Body)
		}
		servertest.MustStatus(t, bob.Do("DELETE", "/memory/prefs/color", "", nil), 204)
		r = bob.Get("/memory/prefs/color")
		servertest.MustStatus(t, r, 404)
		if decode[map[string]any](t, r)["code"] != "memory_not_found" {
			t.Errorf("404 body %s", r.Body)
		}
		servertest.MustStatus(t, bob.Do("DELETE", "/memory/prefs/color", "", nil), 404)
	})
}

func TestMemoryListPages(t *testing.T) {
	servertest.EachStore(t, withUsers, func(t *testing.T, ts *servertest.Server) {
		bob := ts.As(bobToken)
		for i := 4; i >= 0; i-- {
			servertest.MustStatus(t, put(bob, fmt.Sprintf("/memory/notes/n%d", i), `{"value":true}`), 200)
		}
		var keys []string
		path := "/memory/notes?limit=2"
		for range 5 {
			r := bob.Get(path)
			servertest.MustStatus(t, r, 200)
			p := decode[page](t, r)
			for _, it := range p.Items {
				keys = append(keys, it.Key)
			}
			if p.NextCursor == nil {
				break
			}
			path = "/memory/notes?limit=2&cursor=" + url.QueryEscape(*p.NextCursor)
		}
		if strings.Join(keys, ",") != "n0,n1,n2,n3,n4" {
			t.Fatalf("pages gave %v", keys)
		}
		r := bob.Get("/memory/empty")
		servertest.MustStatus(t, r, 200)
		if p := decode[page](t, r); len(p.Items) != 0 || p.NextCursor != nil || !strings.Contains(string(r.Body), `"items":[]`) {
			t.Fatalf("an empty namespace lists %s", r.Body)
		}
		servertest.MustStatus(t, bob.Get("/memory/notes?limit=0"), 400)
		servertest.MustStatus(t, bob.Get("/memory/notes?limit=101"), 400)
	})
}

func TestMemorySearchAndIsolation(t *testing.T) {
	servertest.EachStore(t, withUsers, func(t *testing.T, ts *servertest.Server) {
		bob, carol, alice := ts.As(bobToken), ts.As(carolToken), ts.As(aliceToken)
		servertest.MustStatus(t, put(bob, "/memory/facts/pet", `{"value":{"kind":"dog","name":"Rex"},"text":"Bob has a dog"}`), 200)
		servertest.MustStatus(t, put(bob, "/memory/facts/home", `{"value":"Lisbon","text":"Bob lives in Lisbon"}`), 200)
		servertest.MustStatus(t, put(carol, "/memory/facts/pet", `{"value":"cat","text":"Carol has a cat and no dog"}`), 200)

		r := bob.Post("/memory/search", `{"query":"what dog does he have, Rex?"}`)
		servertest.MustStatus(t, r, 200)
		p := decode[page](t, r)
		if p.Search != "keyword" || len(p.Items) != 1 || p.Items[0].Key != "pet" || string(p.Items[0].Value) != `{"kind":"dog","name":"Rex"}` || p.Items[0].Score == nil || *p.Items[0].Score <= 0 {
			t.Fatalf("bob's search answered %s", r.Body)
		}
		// Carol never sees bob's items, whatever she asks.
		r = carol.Post("/memory/search", `{"query":"dog Rex Lisbon"}`)
		servertest.MustStatus(t, r, 200)
		if p := decode[page](t, r); len(p.Items) != 1 || string(p.Items[0].Value) != `"cat"` {
			t.Fatalf("carol's search answered %s", r.Body)
		}
		servertest.MustStatus(t, carol.Get("/memory/facts/home"), 404)
		servertest.MustStatus(t, carol.Do("DELETE", "/memory/facts/home", "", nil), 404)
		if p := decode[page](t, carol.Get("/memory/facts")); len(p.Items) != 1 || p.Items[0].Key != "pet" {
			t.Fatalf("carol lists %+v", p.Items)
		}
		// Nor may she name bob: only owners may.
		servertest.MustStatus(t, carol.Get("/memory/facts/home?user=bob"), 404)
		servertest.MustStatus(t, carol.Post("/memory/search?user=bob", `{"query":"Lisbon"}`), 404)
		servertest.MustStatus(t, put(carol, "/memory/facts/home?user=bob", `{"value":"Paris"}`), 404)
		// The owner acts for bob with ?user=.
		r = alice.Get("/memory/facts/home?user=bob")
		servertest.MustStatus(t, r, 200)
		if decode[item](t, r).Text != "Bob lives in Lisbon" {
			t.Fatalf("the owner read %s", r.Body)
		}
		r = alice.Post("/memory/search?user=bob&x=1", `{"query":"Lisbon","namespace":"facts","limit":5}`)
		servertest.MustStatus(t, r, 200)
		if p := decode[page](t, r); len(p.Items) != 1 || p.Items[0].Key != "home" {
			t.Fatalf("the owner's search for bob answered %s", r.Body)
		}
		// The owner's own memory is not bob's.
		servertest.MustStatus(t, alice.Get("/memory/facts/home"), 404)
	})
}

func TestMemoryTTL(t *testing.T) {
	servertest.EachStore(t, withUsers, func(t *testing.T, ts *servertest.Server) {
		bob := ts.As(bobToken)
		r := put(bob, "/memory/tmp/code", `{"value":"4711","text":"door code","ttlSeconds":1}`)
		servertest.MustStatus(t, r, 200)
		it := decode[item](t, r)
		if it.ExpiresAt == nil || !it.ExpiresAt.After(it.UpdatedAt) || it.ExpiresAt.Sub(it.UpdatedAt) != time.Second {
			t.Fatalf("put with a TTL answered %s", r.Body)
		}
		deadline := time.Now().Add(10 * time.Second)
		for bob.Get("/memory/tmp/code").Status == 200 {
			if time.Now().After(deadline) {
				t.Fatal("the item outlived its TTL by 9 s")
			}
			time.Sleep(100 * time.Millisecond)
		}
		if p := decode[page](t, bob.Post("/memory/search", `{"query":"door code"}`)); len(p.Items) != 0 {
			t.Fatalf("an expired item was found: %+v", p.Items)
		}
		if p := decode[page](t, bob.Get("/memory/tmp")); len(p.Items) != 0 {
			t.Fatalf("an expired item was listed: %+v", p.Items)
		}
	})
}

func TestMemoryBadInputNamesTheFieldAndStoresNothing(t *testing.T) {
	long := strings.Repeat("k", 257)
	cases := []struct{ method, path, body, code string }{
		{"PUT", "/memory/n/k", `{"text":"no value"}`, "invalid_value"},
		{"PUT", "/memory/n/k", `{"value":null}`, "invalid_value"},
		{"PUT", "/memory/n/k", `{"value":1,"colour":"red"}`, "invalid_body"},
		{"PUT", "/memory/n/k", `[1]`, "invalid_body"},
		{"PUT", "/memory/n/k", `{"value":1,"text":7}`, "invalid_text"},
		{"PUT", "/memory/n/k", `{"value":1,"ttlSeconds":0}`, "invalid_ttl_seconds"},
		{"PUT", "/memory/n/k", `{"value":1,"ttlSeconds":1.5}`, "invalid_ttl_seconds"},
		{"PUT", "/memory/n/k", `{"value":1,"ttlSeconds":"soon"}`, "invalid_ttl_seconds"},
		{"PUT", "/memory/n/k", `{"value":1,"ttlSeconds":999999999999}`, "invalid_ttl_seconds"},
		{"PUT", "/memory/n/" + long, `{"value":1}`, "invalid_key"},
		{"PUT", "/memory/n/a%01b", `{"value":1}`, "invalid_key"},
		{"PUT", "/memory/" + strings.Repeat("n", 129) + "/k", `{"value":1}`, "invalid_namespace"},
		{"PUT", "/memory/n/k", `{"value":"` + strings.Repeat("v", 70000) + `"}`, "invalid_value"},
		{"POST", "/memory/search", `{}`, "invalid_query"},
		{"POST", "/memory/search", `{"query":"  "}`, "invalid_query"},
		{"POST", "/memory/search", `{"query":"x","limit":0}`, "invalid_limit"},
		{"POST", "/memory/search", `{"query":"x","limit":101}`, "invalid_limit"},
		{"POST", "/memory/search", `{"query":"x","namespace":""}`, "invalid_namespace"},
		{"POST", "/memory/search", `{"query":"x","scope":"all"}`, "invalid_body"},
	}
	servertest.EachStore(t, withUsers, func(t *testing.T, ts *servertest.Server) {
		bob := ts.As(bobToken)
		for _, c := range cases {
			r := bob.Do(c.method, c.path, "application/json", []byte(c.body))
			if r.Status != 400 || decode[map[string]any](t, r)["code"] != c.code {
				t.Errorf("%s %s %.60s: %d %s, want 400 %s", c.method, c.path, c.body, r.Status, r.Body, c.code)
			}
		}
		for _, ns := range []string{"n", strings.Repeat("n", 129)} {
			if p := decode[page](t, bob.Get("/memory/"+ns)); len(p.Items) != 0 {
				t.Errorf("a refused put stored %+v", p.Items)
			}
		}
	})
}
