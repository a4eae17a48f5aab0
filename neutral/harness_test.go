package neutral_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/r3labs/sse/v2"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// testServer is a whole harnest server over httptest, on one store.
type testServer struct {
	t     testing.TB
	URL   string
	srv   *server.Server
	token string // sent as a bearer token when not empty
}

// setup describes a server under test: config changes and an optional
// agent that replaces the configured backend.
type setup struct {
	config func(*config.Config)
	agent  runtime.Agent
	tune   func(*runtime.Options)
	prefix string // share a key prefix between servers (replica tests)
}

// eachStore runs fn against a server on the embedded store and on a real
// redis-server.
func eachStore(t *testing.T, s setup, fn func(t *testing.T, ts *testServer)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			fn(t, newTestServer(t, c.URL, s))
		})
	}
}

func newTestServer(t testing.TB, redisURL string, s setup) *testServer {
	t.Helper()
	f, err := config.Load("../examples/hello")
	if err != nil {
		t.Fatal(err)
	}
	f.Config.Store.KeyPrefix = testutil.Prefix(t)
	if s.prefix != "" {
		f.Config.Store.KeyPrefix = s.prefix
	}
	if s.config != nil {
		s.config(&f.Config)
	}
	srv, err := server.New(context.Background(), f, server.Options{RedisURL: redisURL, Agent: s.agent, Tune: s.tune})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(func() {
		hs.Close()
		// Responses still waiting for an answer are cancelled at once.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_ = srv.Service.Shutdown(ctx)
		srv.Close()
	})
	return &testServer{t: t, URL: hs.URL, srv: srv}
}

// as returns a copy of the server handle that sends the given token.
func (ts *testServer) as(token string) *testServer {
	c := *ts
	c.token = token
	return &c
}

// reply is a finished HTTP exchange.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r reply) JSON(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return v
}

func (ts *testServer) do(method, path, contentType string, body []byte) reply {
	ts.t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		ts.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if ts.token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func (ts *testServer) get(path string) reply { return ts.do("GET", path, "", nil) }

func (ts *testServer) post(path, body string) reply {
	return ts.do("POST", path, "application/json", []byte(body))
}

// mustStatus fails the test unless the reply has the status; for error
// statuses it also checks the {"detail","code"} body.
func mustStatus(t *testing.T, r reply, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	if status >= 400 {
		var e struct{ Detail, Code string }
		if json.Unmarshal(r.Body, &e) != nil || e.Detail == "" || e.Code == "" {
			t.Fatalf("error body is not {detail, code}: %s", r.Body)
		}
	}
}

// sseFrame is one parsed SSE frame.
type sseFrame struct {
	Event string
	ID    string
	Data  map[string]any
	Raw   string
}

// stream posts a streaming request and returns the frames and the raw
// response; the frames are split by r3labs/sse's event stream reader.
func (ts *testServer) stream(body string) ([]sseFrame, *http.Response) {
	ts.t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+"/responses", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if ts.token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		ts.t.Fatalf("stream status %d: %s", resp.StatusCode, b)
	}
	return readFrames(ts.t, resp.Body), resp
}

func readFrames(t testing.TB, body io.Reader) []sseFrame {
	t.Helper()
	reader := sse.NewEventStreamReader(body, 1<<20)
	var frames []sseFrame
	for {
		raw, err := reader.ReadEvent()
		if len(raw) > 0 {
			if f, ok := parseFrame(t, raw); ok {
				frames = append(frames, f)
			}
		}
		if err != nil {
			return frames
		}
	}
}

func parseFrame(t testing.TB, raw []byte) (sseFrame, bool) {
	var f sseFrame
	f.Raw = string(raw)
	data := ""
	for _, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, ":"): // comment (keep-alive)
		case strings.HasPrefix(line, "event: "):
			f.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "id: "):
			f.ID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ")
		}
	}
	if data == "" {
		return f, false
	}
	if err := json.Unmarshal([]byte(data), &f.Data); err != nil {
		t.Fatalf("frame data is not JSON: %q", raw)
	}
	return f, true
}
