package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/runtime/store"
	"github.com/harnest/harnest/runtime/store/memstore"
	"github.com/harnest/harnest/runtime/store/stores"
	"github.com/harnest/harnest/server"
)

func TestMain(m *testing.M) { testutil.Main(m) }

const (
	ownerToken   = "token-owner-0123456789" // alice, the first owner
	visitorToken = "token-visitor-0123456789"
	ownerBToken  = "token-owner-b-0123456789" // carol, a second owner
)

// clock is a settable clock for the relay (the runtime keeps real time).
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// env is one replica: a harnest server whose backend is the relay, with the
// relay's endpoints mounted the way the server will mount them.
type env struct {
	t     testing.TB
	URL   string
	Relay *relay.Relay
	Clock *clock
	Store store.Store
	srv   *server.Server
}

type envSetup struct {
	backend *config.RelayBackend
	noAuth  bool
	prefix  string
	// shared is a store another replica uses too (nil: the env's own).
	shared store.Store
}

func eachStore(t *testing.T, s envSetup, fn func(t *testing.T, e *env)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) { fn(t, newEnv(t, c.URL, s)) })
	}
}

// openStore opens the store of a testutil.StoreCase URL: the in-process
// store for "", Redis otherwise; it is closed when the test ends.
func openStore(t testing.TB, redisURL, prefix string) store.Store {
	t.Helper()
	if redisURL == "" {
		st := memstore.New(memstore.Options{})
		t.Cleanup(func() { st.Close() })
		return st
	}
	st, err := stores.Open(context.Background(), stores.Options{URL: redisURL, KeyPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newEnv starts a replica on the store of redisURL ("" is the in-process
// store), or on s.shared.
func newEnv(t testing.TB, redisURL string, s envSetup) *env {
	t.Helper()
	f, err := config.Load("../examples/hello")
	if err != nil {
		t.Fatal(err)
	}
	f.Config.Store.KeyPrefix = testutil.Prefix(t)
	if s.prefix != "" {
		f.Config.Store.KeyPrefix = s.prefix
	}
	owners, first := map[string]bool{}, ""
	var tokens []auth.Token
	if !s.noAuth {
		f.Config.Auth.Tokens = []config.Token{
			{Token: ownerToken, User: "alice", Owner: true},
			{Token: visitorToken, User: "bob"},
			{Token: ownerBToken, User: "carol", Owner: true},
		}
		for _, tk := range f.Config.Auth.Tokens {
			tokens = append(tokens, auth.Token{Token: tk.Token, User: tk.User})
			if tk.Owner {
				owners[tk.User] = true
				if first == "" {
					first = tk.User
				}
			}
		}
	}
	backend := s.backend
	if backend == nil {
		backend = &config.RelayBackend{}
	}
	var rl *relay.Relay
	lazy := runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		return rl.Agent().Run(ctx, turn, emit)
	})
	st := s.shared
	if st == nil {
		st = openStore(t, redisURL, f.Config.Store.KeyPrefix)
	}
	srv, err := server.New(context.Background(), f, server.Options{Store: st, Agent: lazy})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{}
	authn := auth.New(tokens, nil)
	rl, err = relay.New(relay.Options{Service: srv.Service, Store: srv.Store,
		Auth: authn, Owners: owners, FirstOwner: first, Backend: backend, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	// As the lead wires it: the relay's routes on the server's mux, and
	// IsPublic OR'ed into the auth middleware's public function.
	mux := http.NewServeMux()
	rl.Register(mux)
	authn = auth.New(tokens, rl.IsPublic)
	relayHandler := authn.Middleware(mux)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, relay.APIPrefix) || strings.HasPrefix(r.URL.Path, relay.OwnerPrefix) {
			relayHandler.ServeHTTP(w, r)
			return
		}
		srv.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_ = srv.Service.Shutdown(ctx)
		rl.Close()
		srv.Close()
	})
	return &env{t: t, URL: hs.URL, Relay: rl, Clock: clk, Store: st, srv: srv}
}

type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r reply) JSON(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return v
}

func (e *env) do(method, path, token, body string) reply {
	e.t.Helper()
	req, err := http.NewRequest(method, e.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func mustStatus(t testing.TB, r reply, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if status >= 400 {
		var b struct{ Detail, Code string }
		if json.Unmarshal(r.Body, &b) != nil || b.Detail == "" || b.Code == "" {
			t.Fatalf("error body is not {detail, code}: %s", r.Body)
		}
	}
}

func mustCode(t testing.TB, r reply, status int, code string) {
	t.Helper()
	mustStatus(t, r, status)
	if got, _ := r.JSON(t)["code"].(string); got != code {
		t.Fatalf("code %q, want %q: %s", got, code, r.Body)
	}
}

// pair creates a code as the first owner and exchanges it; it returns the
// session token and participant ID.
func (e *env) pair(name, kind string) (string, string) {
	e.t.Helper()
	return e.pairAs(ownerToken, name, kind)
}

// pairAs creates a code as the owner of ownerTok and exchanges it.
func (e *env) pairAs(ownerTok, name, kind string) (string, string) {
	e.t.Helper()
	r := e.do("POST", "/owner/outside-agents/pairings", ownerTok, `{"name":"`+name+`","kind":"`+kind+`"}`)
	mustStatus(e.t, r, 201)
	code := r.JSON(e.t)["code"].(string)
	r = e.do("POST", "/api/outside-agents/v1/pairings/exchange", "", `{"code":"`+code+`","card":{"name":"`+name+`","kind":"`+kind+`"}}`)
	mustStatus(e.t, r, 201)
	v := r.JSON(e.t)
	return v["token"].(string), v["participant_id"].(string)
}

type inboxItem struct {
	RelayID    string `json:"relay_id"`
	Text       string `json:"text"`
	AskedAt    string `json:"asked_at"`
	DeadlineAt string `json:"deadline_at"`
}

func (e *env) inbox(token string, wait int) []inboxItem {
	e.t.Helper()
	r := e.do("GET", "/api/outside-agents/v1/inbox?wait="+itoa(wait), token, "")
	mustStatus(e.t, r, 200)
	var v struct{ Items []inboxItem }
	if err := json.Unmarshal(r.Body, &v); err != nil || v.Items == nil {
		e.t.Fatalf("inbox body: %v: %s", err, r.Body)
	}
	return v.Items
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// turn posts a non-streaming response in the background and returns its
// finished reply.
func (e *env) turn(token, input string) <-chan reply {
	ch := make(chan reply, 1)
	body, _ := json.Marshal(map[string]string{"input": input})
	go func() {
		req, _ := http.NewRequest("POST", e.URL+"/responses", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ch <- reply{Status: -1, Body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		ch <- reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
	}()
	return ch
}

func wait(t testing.TB, ch <-chan reply) reply {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("turn did not finish")
	}
	return reply{}
}
