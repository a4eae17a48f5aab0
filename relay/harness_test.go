package relay_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/server/servertest"
	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
	"github.com/harnest/harnest/store/stores"
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

// env is one replica: a whole harnest server (servertest) whose backend
// is the relay, and the relay's clock.
type env struct {
	*servertest.Server
	Clock *clock
	Store store.Store
}

type envSetup struct {
	backend *config.RelayBackend // spec.backend.relay (default: any participant)
	noAuth  bool                 // no tokens: the anonymous user is the owner
}

// serverSetup is s as servertest starts it, with the relay on clk.
func (s envSetup) serverSetup(clk *clock) servertest.Setup {
	backend := s.backend
	if backend == nil {
		backend = &config.RelayBackend{}
	}
	return servertest.Setup{
		Config: func(c *config.Config) {
			c.Spec.Backend = config.Backend{Relay: backend}
			if !s.noAuth {
				c.Auth.Tokens = []config.Token{
					{Token: ownerToken, User: "alice", Owner: true},
					{Token: visitorToken, User: "bob"},
					{Token: ownerBToken, User: "carol", Owner: true},
				}
			}
		},
		Relay: func(o *relay.Options) { o.Now = clk.Now },
	}
}

func eachStore(t *testing.T, s envSetup, fn func(t *testing.T, e *env)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) { fn(t, newEnv(t, c.URL, s)) })
	}
}

// newEnv starts a replica on the store of redisURL ("" is the in-process
// store), with a clock of its own.
func newEnv(t testing.TB, redisURL string, s envSetup) *env {
	t.Helper()
	clk := &clock{}
	return newEnvOf(servertest.Start(t, redisURL, s.serverSetup(clk)), clk)
}

// newReplicas starts n replicas that share one store (servertest.Replicas)
// and one clock.
func newReplicas(t testing.TB, redisURL string, n int, s envSetup) []*env {
	t.Helper()
	clk := &clock{}
	var envs []*env
	for _, ts := range servertest.Replicas(t, redisURL, n, s.serverSetup(clk)) {
		envs = append(envs, newEnvOf(ts, clk))
	}
	return envs
}

func newEnvOf(ts *servertest.Server, clk *clock) *env {
	return &env{Server: ts, Clock: clk, Store: ts.Srv.Store}
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

// reply is a finished HTTP exchange.
type reply = servertest.Reply

// do sends a request with token ("" for none) and a JSON body ("" for
// none).
func (e *env) do(method, path, token, body string) reply {
	e.T.Helper()
	if body == "" {
		return e.As(token).Do(method, path, "", nil)
	}
	return e.As(token).Do(method, path, "application/json", []byte(body))
}

var mustStatus = servertest.MustStatus

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
	e.T.Helper()
	return e.pairAs(ownerToken, name, kind)
}

// pairAs creates a code as the owner of ownerTok and exchanges it.
func (e *env) pairAs(ownerTok, name, kind string) (string, string) {
	e.T.Helper()
	r := e.do("POST", "/owner/outside-agents/pairings", ownerTok, `{"name":"`+name+`","kind":"`+kind+`"}`)
	mustStatus(e.T, r, 201)
	code := r.JSON(e.T)["code"].(string)
	r = e.do("POST", "/api/outside-agents/v1/pairings/exchange", "", `{"code":"`+code+`","card":{"name":"`+name+`","kind":"`+kind+`"}}`)
	mustStatus(e.T, r, 201)
	v := r.JSON(e.T)
	return v["token"].(string), v["participant_id"].(string)
}

type inboxItem struct {
	RelayID    string `json:"relay_id"`
	Text       string `json:"text"`
	AskedAt    string `json:"asked_at"`
	DeadlineAt string `json:"deadline_at"`
}

func (e *env) inbox(token string, wait int) []inboxItem {
	e.T.Helper()
	r := e.do("GET", "/api/outside-agents/v1/inbox?wait="+itoa(wait), token, "")
	mustStatus(e.T, r, 200)
	var v struct{ Items []inboxItem }
	if err := json.Unmarshal(r.Body, &v); err != nil || v.Items == nil {
		e.T.Fatalf("inbox body: %v: %s", err, r.Body)
	}
	return v.Items
}

// answer waits for one inbox item of token, checks its text and replies.
func (e *env) answer(token, question, text string) {
	e.T.Helper()
	items := e.inbox(token, 10)
	if len(items) != 1 || items[0].Text != question {
		e.T.Fatalf("inbox %+v, want the one question %q", items, question)
	}
	mustStatus(e.T, e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"`+items[0].RelayID+`","text":"`+text+`"}`), 200)
}

// roundTrip asks question as the caller (callerTok), answers it as the
// participant (participantTok) and checks that the turn answers text.
func (e *env) roundTrip(callerTok, participantTok, question, text string) {
	e.T.Helper()
	done := e.turn(callerTok, question)
	e.answer(participantTok, question, text)
	if got := outputText(e.T, wait(e.T, done)); got != text {
		e.T.Fatalf("answer %q, want %q", got, text)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// turn posts a non-streaming response in the background and returns its
// finished reply.
func (e *env) turn(token, input string) <-chan reply {
	ch := make(chan reply, 1)
	body, _ := json.Marshal(map[string]string{"input": input})
	req := e.As(token).Request("POST", "/responses", "application/json", body)
	go func() {
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
