package statuswriter_test

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/harnest/harnest/internal/statuswriter"
)

type watch struct{ told []int }

func (w *watch) Answered(status int) { w.told = append(w.told, status) }

func TestStatusIsTheFirstFinalAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		status int
		bytes  int64
	}{
		{"nothing written", func(http.ResponseWriter) {}, 0, 0},
		{"write", func(w http.ResponseWriter) { _, _ = w.Write([]byte("hello")) }, 200, 5},
		{"header then write", func(w http.ResponseWriter) {
			w.WriteHeader(404)
			_, _ = w.Write([]byte("{}"))
		}, 404, 2},
		{"early hints then 201", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(201)
		}, 201, 0},
		{"flush", func(w http.ResponseWriter) { _ = http.NewResponseController(w).Flush() }, 200, 0},
	} {
		wt := &watch{}
		sw := &statuswriter.Writer{ResponseWriter: httptest.NewRecorder(), Watch: wt}
		tc.answer(sw)
		if sw.Status() != tc.status || sw.Bytes() != tc.bytes {
			t.Errorf("%s: status %d bytes %d, want %d %d", tc.name, sw.Status(), sw.Bytes(), tc.status, tc.bytes)
		}
		if want := tc.status; (want == 0 && len(wt.told) != 0) || (want != 0 && (len(wt.told) != 1 || wt.told[0] != want)) {
			t.Errorf("%s: the watcher was told %v, want %d once", tc.name, wt.told, want)
		}
	}
}

func TestUnwrapAndFlushPassThrough(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := &statuswriter.Writer{ResponseWriter: rec}
	if sw.Unwrap() != rec {
		t.Errorf("Unwrap is %T, want the wrapped writer", sw.Unwrap())
	}
	sw.Flush()
	if !rec.Flushed {
		t.Error("Flush did not reach the wrapped writer")
	}
}

// hijacker is a writer whose connection can be taken over.
type hijacker struct{ http.ResponseWriter }

func (hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, _ := net.Pipe()
	return c, nil, nil
}

func TestHijackIsCountedAs101(t *testing.T) {
	sw := &statuswriter.Writer{ResponseWriter: hijacker{httptest.NewRecorder()}}
	conn, _, err := http.NewResponseController(sw).Hijack()
	if err != nil {
		t.Fatalf("Hijack: %v", err)
	}
	_ = conn.Close()
	if sw.Status() != http.StatusSwitchingProtocols {
		t.Errorf("status %d after a hijack, want 101", sw.Status())
	}
	plain := &statuswriter.Writer{ResponseWriter: httptest.NewRecorder()}
	if _, _, err := plain.Hijack(); err == nil || plain.Status() != 0 {
		t.Errorf("Hijack of a writer that cannot: %v, status %d; want an error and no status", err, plain.Status())
	}
}
