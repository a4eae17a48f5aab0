package httplog

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// syncBuffer is a log sink the test reads while the server writes.
type syncBuffer = testutil.SyncBuffer

func newLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewJSONHandler(buf, nil)), buf
}

// oneLine parses the single log line in buf.
func oneLine(t *testing.T, buf *syncBuffer) map[string]any {
	t.Helper()
	out := buf.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1 || lines[0] == "" {
		t.Fatalf("want exactly one log line, got %q", out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
		t.Fatalf("log line %q: %v", lines[0], err)
	}
	return m
}

func TestLogsOneLineWithoutSecrets(t *testing.T) {
	log, buf := newLogger()
	var gotBody string
	h := Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte("hello"))
		_, _ = w.Write([]byte(", world"))
	}))
	r := httptest.NewRequest(http.MethodPost, "/v1/responses?token=abc&x=querysecret",
		strings.NewReader(`{"input":"body-secret"}`))
	r.Header.Set("Authorization", "Bearer header-secret-token")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Cookie", "session=cookie-secret")
	r.Header.Set("X-Request-Id", "req-123")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)

	if gotBody != `{"input":"body-secret"}` || w.Body.String() != "hello, world" || w.Code != http.StatusCreated {
		t.Fatalf("the middleware changed the exchange: body %q, response %q, %d", gotBody, w.Body, w.Code)
	}
	m := oneLine(t, buf)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got, want := strings.Join(keys, ","), "bytes,duration,level,method,msg,path,requestId,status,time"; got != want {
		t.Errorf("log keys %s, want %s", got, want)
	}
	if m["method"] != "POST" || m["path"] != "/v1/responses" || m["status"] != float64(201) ||
		m["bytes"] != float64(12) || m["requestId"] != "req-123" || m["msg"] != "request" || m["level"] != "INFO" {
		t.Errorf("log line %v", m)
	}
	if d, ok := m["duration"].(float64); !ok || d < 0 {
		t.Errorf("duration %v", m["duration"])
	}
	line := buf.String()
	for _, secret := range []string{"token=abc", "abc", "querysecret", "?", "body-secret", "header-secret-token",
		"Bearer", "cookie-secret", "application/json"} {
		if strings.Contains(line, secret) {
			t.Errorf("log line contains %q: %s", secret, line)
		}
	}
	if got := w.Header().Get("X-Request-Id"); got != "req-123" {
		t.Errorf("X-Request-Id %q", got)
	}
}

func TestDefaultStatus(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		status  float64
		bytes   float64
	}{
		{"nothing written", func(w http.ResponseWriter, r *http.Request) {}, 200, 0},
		{"write without header", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("abc")) }, 200, 3},
		{"first status wins", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNotFound)
			w.WriteHeader(http.StatusInternalServerError)
		}, 404, 0},
		{"write then header", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("x"))
			w.WriteHeader(http.StatusTeapot)
		}, 200, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, buf := newLogger()
			Middleware(log, tt.handler).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/p", nil))
			m := oneLine(t, buf)
			if m["status"] != tt.status || m["bytes"] != tt.bytes {
				t.Errorf("status %v bytes %v, want %v %v", m["status"], m["bytes"], tt.status, tt.bytes)
			}
		})
	}
}

func TestLogsEvenWhenHandlerPanics(t *testing.T) {
	log, buf := newLogger()
	h := Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }))
	func() {
		defer func() { _ = recover() }()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/boom", nil))
	}()
	if m := oneLine(t, buf); m["path"] != "/boom" {
		t.Errorf("log line %v", m)
	}
}

var generatedID = regexp.MustCompile(`^[0-9a-f]{16}$`)

func TestRequestID(t *testing.T) {
	tests := []struct {
		name string
		in   []string // nil: no header
		echo bool
	}{
		{"missing", nil, false},
		{"valid", []string{"abc-DEF_123"}, true},
		{"64 chars", []string{strings.Repeat("a", 64)}, true},
		{"65 chars", []string{strings.Repeat("a", 65)}, false},
		{"spaces", []string{"has spaces"}, false},
		{"slash", []string{"a/b"}, false},
		{"newline-ish", []string{"a\tb"}, false},
		{"unicode", []string{"héllo"}, false},
		{"empty", []string{""}, false},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, buf := newLogger()
			var inHandler string
			h := Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				inHandler = w.Header().Get("X-Request-Id")
			}))
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			for _, v := range tt.in {
				r.Header.Set("X-Request-Id", v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			got := w.Header().Get("X-Request-Id")
			if tt.echo {
				if got != tt.in[0] {
					t.Errorf("X-Request-Id %q, want echo of %q", got, tt.in[0])
				}
			} else {
				if !generatedID.MatchString(got) {
					t.Errorf("X-Request-Id %q is not a generated id", got)
				}
				if seen[got] {
					t.Errorf("generated id %q repeated", got)
				}
				seen[got] = true
			}
			if inHandler != got {
				t.Errorf("handler saw %q before writing, response has %q", inHandler, got)
			}
			if m := oneLine(t, buf); m["requestId"] != got {
				t.Errorf("logged requestId %v, header %q", m["requestId"], got)
			}
		})
	}
}

func TestFlushAndUnwrapPassThrough(t *testing.T) {
	log, buf := newLogger()
	var flushErr error
	var unwrapped http.ResponseWriter
	rec := httptest.NewRecorder()
	h := Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("data"))
		flushErr = http.NewResponseController(w).Flush()
		if u, ok := w.(interface{ Unwrap() http.ResponseWriter }); ok {
			unwrapped = u.Unwrap()
		}
	}))
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if flushErr != nil || !rec.Flushed {
		t.Errorf("Flush through the recorder: %v, flushed %v", flushErr, rec.Flushed)
	}
	if unwrapped != rec {
		t.Errorf("Unwrap returned %T", unwrapped)
	}
	if m := oneLine(t, buf); m["bytes"] != float64(4) {
		t.Errorf("log %v", m)
	}
}

func TestHijackNotSupported(t *testing.T) {
	log, _ := newLogger()
	var err error
	Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _, err = http.NewResponseController(w).Hijack()
	})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if err == nil {
		t.Error("Hijack of a recorder succeeded")
	}
}

func TestHijackPassesThrough(t *testing.T) {
	log, buf := newLogger()
	hijacked := make(chan error, 1)
	srv := httptest.NewServer(Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		hijacked <- err
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
		_ = rw.Flush()
	})))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/ws")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(bufio.NewReader(resp.Body))
	if err := <-hijacked; err != nil {
		t.Fatalf("Hijack: %v", err)
	}
	if string(body) != "hijacked" {
		t.Errorf("body %q", body)
	}
	// The hijacked connection is no longer tracked by the server: wait
	// for the handler to return and the line to be written.
	for deadline := time.Now().Add(2 * time.Second); buf.String() == "" && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if m := oneLine(t, buf); m["status"] != float64(http.StatusSwitchingProtocols) || m["path"] != "/ws" {
		t.Errorf("log %v", m)
	}
}

// TestBoundsClientValues: whatever the client sends, one log line stays
// short. A 900 KB path used to be logged whole.
func TestBoundsClientValues(t *testing.T) {
	longPath := "/" + strings.Repeat("a", 900_000)
	// "é" is two bytes: a cut at 256 bytes would split one.
	accented := "/" + strings.Repeat("é", 300)
	tests := []struct {
		name, method, target, id string
		wantMethod, wantPath     string
	}{
		{"long path", "GET", longPath, "", "GET", longPath[:256] + "…(900001 bytes)"},
		{"path at the bound", "GET", "/" + strings.Repeat("b", 255), "", "GET", "/" + strings.Repeat("b", 255)},
		{"cut between characters", "GET", accented, "", "GET", "/" + strings.Repeat("é", 127) + "…(601 bytes)"},
		{"long method", strings.Repeat("M", 5000), "/p", "", strings.Repeat("M", 32) + "…(5000 bytes)", "/p"},
		{"long request ID", "GET", "/p", strings.Repeat("r", 900_000), "GET", "/p"},
		{"query never logged", "GET", "/p?" + strings.Repeat("q", 900_000), "", "GET", "/p"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, buf := newLogger()
			r := httptest.NewRequest(tt.method, tt.target, nil)
			if tt.id != "" {
				r.Header.Set("X-Request-Id", tt.id)
			}
			Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusUnauthorized)
			})).ServeHTTP(httptest.NewRecorder(), r)
			if n := len(buf.String()); n > 1024 {
				t.Fatalf("log line of %d bytes", n)
			}
			m := oneLine(t, buf)
			if m["method"] != tt.wantMethod || m["path"] != tt.wantPath {
				t.Errorf("method %q path %q, want %q %q", m["method"], m["path"], tt.wantMethod, tt.wantPath)
			}
			if id, _ := m["requestId"].(string); !generatedID.MatchString(id) && id != tt.id {
				t.Errorf("requestId %q", id)
			}
			if tt.id != "" && m["requestId"] == tt.id {
				t.Errorf("a %d-byte request ID was echoed", len(tt.id))
			}
		})
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"", 4, ""},
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd…(5 bytes)"},
		{"ab€d", 3, "ab…(6 bytes)"}, // "€" is three bytes: never cut inside it
		{"€€", 1, "…(6 bytes)"},
		{"a\xffb\xffc", 2, "a\xff…(5 bytes)"}, // invalid UTF-8 is cut anywhere
	} {
		if got := clip(tt.in, tt.max); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}
