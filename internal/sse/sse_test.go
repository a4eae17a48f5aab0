package sse

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNamedFrame(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := Start(rec, 0)
	if err := sw.Event("x", 3, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	sw.Close()
	if got, want := rec.Body.String(), "event: x\nid: 3\ndata: {\"a\":1}\n\n"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
	if rec.Code != http.StatusOK {
		t.Errorf("status %d", rec.Code)
	}
	for k, v := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := rec.Header().Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if !rec.Flushed {
		t.Error("not flushed")
	}
}

func TestFrames(t *testing.T) {
	tests := []struct {
		name string
		ev   string
		id   int
		data string
		want string
	}{
		{"unnamed AG-UI frame", "", -1, `{"type":"RUN_STARTED"}`, "data: {\"type\":\"RUN_STARTED\"}\n\n"},
		{"id zero", "response.created", 0, `{}`, "event: response.created\nid: 0\ndata: {}\n\n"},
		{"named without id", "ping", -1, `1`, "event: ping\ndata: 1\n\n"},
		{"id without name", "", 42, `"s"`, "id: 42\ndata: \"s\"\n\n"},
		{"empty data", "", -1, ``, "data: \n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			sw := Start(rec, 0)
			defer sw.Close()
			if err := sw.Event(tt.ev, tt.id, []byte(tt.data)); err != nil {
				t.Fatal(err)
			}
			if got := rec.Body.String(); got != tt.want {
				t.Errorf("body %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConsecutiveFramesDoNotShareBytes(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := Start(rec, 0)
	defer sw.Close()
	_ = sw.Event("long-name", 100, []byte(`{"long":"payload"}`))
	_ = sw.Event("s", 1, []byte(`2`))
	want := "event: long-name\nid: 100\ndata: {\"long\":\"payload\"}\n\nevent: s\nid: 1\ndata: 2\n\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("body %q, want %q", got, want)
	}
}

// syncWriter is a ResponseWriter whose body can be read while the keep-alive
// timer writes to it.
type syncWriter struct {
	mu      sync.Mutex
	header  http.Header
	body    bytes.Buffer
	code    int
	flushes int
}

func newSyncWriter() *syncWriter { return &syncWriter{header: http.Header{}} }

func (w *syncWriter) Header() http.Header { return w.header }
func (w *syncWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.code = code
}
func (w *syncWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.Write(b)
}
func (w *syncWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushes++
}
func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.String()
}

func waitFor(t *testing.T, within time.Duration, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cond()
}

func TestKeepAlive(t *testing.T) {
	w := newSyncWriter()
	sw := Start(w, 20*time.Millisecond)
	defer sw.Close()
	if err := sw.Event("e", 0, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if !waitFor(t, 2*time.Second, func() bool { return strings.Count(w.String(), ": keep-alive\n\n") >= 2 }) {
		t.Fatalf("no repeated keep-alive within 2s: %q", w.String())
	}
	body := w.String()
	if !strings.HasPrefix(body, "event: e\nid: 0\ndata: {}\n\n") {
		t.Errorf("body %q", body)
	}
	// Every keep-alive is a whole comment frame after the event.
	if rest := strings.ReplaceAll(strings.TrimPrefix(body, "event: e\nid: 0\ndata: {}\n\n"), ": keep-alive\n\n", ""); rest != "" {
		t.Errorf("unexpected bytes between keep-alives: %q", rest)
	}
}

func TestNoKeepAliveWhenDisabled(t *testing.T) {
	w := newSyncWriter()
	sw := Start(w, 0)
	defer sw.Close()
	time.Sleep(60 * time.Millisecond)
	if got := w.String(); got != "" {
		t.Errorf("body %q", got)
	}
}

func TestNothingAfterClose(t *testing.T) {
	w := newSyncWriter()
	sw := Start(w, 20*time.Millisecond)
	if err := sw.Event("e", 1, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	sw.Close()
	before := w.String()
	if err := sw.Event("late", 2, []byte(`{}`)); err == nil {
		t.Error("Event after Close succeeded")
	}
	sw.Close() // idempotent
	time.Sleep(100 * time.Millisecond)
	if got := w.String(); got != before {
		t.Errorf("written after Close: %q", strings.TrimPrefix(got, before))
	}
}

type failingWriter struct {
	*syncWriter
	fail bool
}

func (w *failingWriter) Write(b []byte) (int, error) {
	if w.fail {
		return 0, http.ErrAbortHandler
	}
	return w.syncWriter.Write(b)
}

func TestWriteErrorIsSticky(t *testing.T) {
	w := &failingWriter{syncWriter: newSyncWriter()}
	sw := Start(w, 0)
	defer sw.Close()
	w.fail = true
	if err := sw.Event("e", 0, []byte(`{}`)); err == nil {
		t.Fatal("write error not reported")
	}
	w.fail = false
	if err := sw.Event("e", 1, []byte(`{}`)); err == nil {
		t.Error("Event after a write error succeeded")
	}
	if got := w.String(); got != "" {
		t.Errorf("body %q", got)
	}
}

// TestFramesAreFlushed reads the first frame over a real connection while
// the handler is still blocked: it must not sit in a buffer.
func TestFramesAreFlushed(t *testing.T) {
	release := make(chan struct{})
	handlerDone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		sw := Start(w, 0)
		defer sw.Close()
		_ = sw.Event("first", 0, []byte(`{"n":0}`))
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		_ = sw.Event("second", 1, []byte(`{"n":1}`))
	}))
	defer srv.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	br := bufio.NewReader(resp.Body)
	readFrame := func() string {
		var b strings.Builder
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("read: %v (got %q)", err, b.String())
			}
			b.WriteString(line)
			if line == "\n" {
				return b.String()
			}
		}
	}
	if got, want := readFrame(), "event: first\nid: 0\ndata: {\"n\":0}\n\n"; got != want {
		t.Errorf("first frame %q, want %q", got, want)
	}
	select {
	case <-handlerDone:
		t.Fatal("handler returned before the first frame was read")
	default:
	}
	close(release)
	if got, want := readFrame(), "event: second\nid: 1\ndata: {\"n\":1}\n\n"; got != want {
		t.Errorf("second frame %q, want %q", got, want)
	}
}

// Frames written without a flush go out with the next flushed one, in order.
func TestWriteBatchesUntilFlush(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := Start(rec, 0)
	rec.Flushed = false
	if err := sw.Write("a", 1, []byte(`1`), false); err != nil {
		t.Fatal(err)
	}
	if rec.Flushed {
		t.Fatal("a frame written without flush was flushed")
	}
	if err := sw.Write("b", 2, []byte(`2`), true); err != nil {
		t.Fatal(err)
	}
	if !rec.Flushed {
		t.Fatal("the flushed frame was not flushed")
	}
	if got, want := rec.Body.String(), "event: a\nid: 1\ndata: 1\n\nevent: b\nid: 2\ndata: 2\n\n"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
}

// Open writes the headers without a flush: they go out with the first
// flushed frame.
func TestOpenDefersTheHeadersToTheFirstFrame(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := Open(rec, 0)
	if rec.Flushed {
		t.Fatal("Open flushed before the first frame")
	}
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("headers %d %v", rec.Code, rec.Header())
	}
	if err := sw.Event("a", 0, []byte(`{}`)); err != nil || !rec.Flushed {
		t.Fatalf("first frame: %v, flushed %v", err, rec.Flushed)
	}
}
