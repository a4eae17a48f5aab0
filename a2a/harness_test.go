package a2a

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime/store/stores"

	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/runtime/store"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// harness is a runtime with the echo agent, these bindings on an httptest
// server, and one store.
type harness struct {
	t      testing.TB
	URL    string
	srv    *Server
	svc    *runtime.Service
	st     store.Store
	prefix string
}

// testCard declares JSON-RPC at /a2a and HTTP+JSON at /rest, both
// versions each.
func testCard(base string, streaming bool) map[string]any {
	return map[string]any{
		"name": "Echo", "description": "Echoes.", "version": "1.0.0",
		"supportedInterfaces": []any{
			map[string]any{"url": base + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
			map[string]any{"url": base + "/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
			map[string]any{"url": base + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
			map[string]any{"url": base + "/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
		},
		"capabilities":       map[string]any{"streaming": streaming},
		"defaultInputModes":  []any{"text/plain"},
		"defaultOutputModes": []any{"text/plain"},
		"skills":             []any{map[string]any{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": []any{"echo"}}},
	}
}

type setup struct {
	echo   config.EchoBackend
	agent  runtime.Agent
	card   func(base string) map[string]any
	prefix string // share a key prefix (replica tests)
	url    string // store URL; "" embedded
	st     store.Store
}

func newHarness(t testing.TB, s setup) *harness {
	t.Helper()
	ctx := context.Background()
	prefix := s.prefix
	if prefix == "" {
		prefix = testutil.Prefix(t)
	}
	st := s.st
	if st == nil {
		var err error
		st, err = stores.Open(ctx, stores.Options{URL: s.url, KeyPrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
	}
	agent := s.agent
	if agent == nil {
		agent = backend.NewEcho(s.echo)
	}
	svc := runtime.New(runtime.Options{Store: st, Agent: agent, FlushDelay: 5 * time.Millisecond, Lease: 3 * time.Second,
		Policy: runtime.OutputPolicy{ShowThinking: true}})
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	hs := httptest.NewUnstartedServer(mux)
	base := "http://" + hs.Listener.Addr().String()
	card := testCard(base, true)
	if s.card != nil {
		card = s.card(base)
	}
	srv, err := New(Options{Service: svc, Store: st, Card: card,
		Principal: func(r *http.Request) runtime.Principal {
			if u := r.Header.Get("X-Test-User"); u != "" {
				return runtime.Principal{UserID: u}
			}
			return runtime.Anonymous
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Register(mux)
	mux.Handle("GET /.well-known/agent-card.json", srv.CardHandler())
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_ = svc.Shutdown(c)
	})
	return &harness{t: t, URL: hs.URL, srv: srv, svc: svc, st: st, prefix: prefix}
}

// eachStore runs fn on the embedded store and on a real redis-server.
func eachStore(t *testing.T, s setup, fn func(t *testing.T, h *harness)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			s := s
			s.url = c.URL
			fn(t, newHarness(t, s))
		})
	}
}

type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r reply) json(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("not a JSON object (%v): %s", err, r.Body)
	}
	return v
}

func (h *harness) do(method, path string, body string, headers ...string) reply {
	h.t.Helper()
	req, err := http.NewRequest(method, h.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b}
}

// rpc calls a JSON-RPC method; version "" sends no A2A-Version header.
func (h *harness) rpc(version, method string, params any, headers ...string) reply {
	h.t.Helper()
	p, _ := json.Marshal(params)
	body := `{"jsonrpc":"2.0","id":"1","method":"` + method + `","params":` + string(p) + `}`
	if version != "" {
		headers = append(headers, "A2A-Version", version)
	}
	return h.do("POST", "/a2a", body, headers...)
}

// sse reads an event stream's data lines as JSON objects.
func (h *harness) sse(method, path, body string, headers ...string) (int, string, []map[string]any) {
	h.t.Helper()
	req, _ := http.NewRequest(method, h.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		var v map[string]any
		_ = json.Unmarshal(b, &v)
		return resp.StatusCode, ct, []map[string]any{v}
	}
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var v map[string]any
			if err := json.Unmarshal([]byte(data), &v); err != nil {
				h.t.Fatalf("SSE data is not JSON: %s", data)
			}
			out = append(out, v)
		}
	}
	return resp.StatusCode, ct, out
}

func msg10(text string, extra ...string) map[string]any {
	m := map[string]any{"messageId": "m-" + text, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

// dig walks a decoded JSON value by keys and indexes.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func str(v any, path ...any) string {
	s, _ := dig(v, path...).(string)
	return s
}

func compactJSON(b []byte) string {
	var buf bytes.Buffer
	_ = json.Compact(&buf, b)
	return buf.String()
}
