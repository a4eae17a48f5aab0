package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// errorOf decodes an error body {"detail","code"}.
func errorOf(t *testing.T, body []byte) ErrorBody {
	t.Helper()
	var e ErrorBody
	if err := json.Unmarshal(body, &e); err != nil || e.Detail == "" || e.Code == "" {
		t.Fatalf("error body is not {detail, code}: %q", body)
	}
	return e
}

func TestReadObject(t *testing.T) {
	const limit = 64
	tests := []struct {
		name   string
		body   string
		length int64 // -1: unknown (chunked)
		status int
		code   string
		detail string // a part of it
	}{
		{"object", `{"a":"é","b":[1]}`, 0, 200, "", ""},
		{"declared too large", strings.Repeat(" ", limit+1) + "{}", 0, 413, "request_too_large", "64B"},
		{"too large without a length", strings.Repeat(" ", limit+1) + "{}", -1, 413, "request_too_large", "64B"},
		{"at the limit", `{"a":"` + strings.Repeat("x", limit-8) + `"}`, 0, 200, "", ""},
		{"invalid UTF-8 in a string", "{\"a\":\"\xff\xfe\"}", 0, 400, "invalid_json", "not valid UTF-8"},
		{"invalid UTF-8 in a key", "{\"\xc3\":1}", 0, 400, "invalid_json", "not valid UTF-8"},
		{"malformed", `{"a":`, 0, 400, "invalid_json", "Invalid UTF-8 JSON"},
		{"array", `[1]`, 0, 400, "invalid_json", "Expected a JSON object"},
		{"null", `null`, 0, 400, "invalid_json", "Expected a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(tt.body))
			if tt.length < 0 {
				r.ContentLength = -1
			}
			w := httptest.NewRecorder()
			obj, ok := ReadObject(w, r, limit)
			if tt.status == 200 {
				if !ok || obj == nil || w.Body.Len() != 0 {
					t.Fatalf("refused: %d %s", w.Code, w.Body)
				}
				return
			}
			if ok || w.Code != tt.status {
				t.Fatalf("ok %v status %d, want %d: %s", ok, w.Code, tt.status, w.Body)
			}
			if e := errorOf(t, w.Body.Bytes()); e.Code != tt.code || !strings.Contains(e.Detail, tt.detail) {
				t.Errorf("error %+v, want code %s and a detail with %q", e, tt.code, tt.detail)
			}
			if got, want := w.Header().Get("Content-Length"), fmt.Sprint(w.Body.Len()); got != want {
				t.Errorf("Content-Length %q, body of %s bytes", got, want)
			}
		})
	}
}

// guarded serves h behind BodyGuard on a loopback listener.
func guarded(t *testing.T, timeout time.Duration, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(BodyGuard(timeout, h))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// request is a request's head and body; length < 0 sends no Content-Length.
func request(method, path string, body []byte, extra ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n", method, path)
	if body != nil {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// readObjectHandler answers 200 {"keys":n} for a JSON object of at most
// limit bytes, else the ReadObject error.
func readObjectHandler(limit int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		obj, ok := ReadObject(w, r, limit)
		if ok {
			WriteJSON(w, http.StatusOK, map[string]int{"keys": len(obj)})
		}
	}
}

// TestBodyGuardAnswersWholeBodyWriters: a client that writes its whole
// oversized body before reading reads the 413 (it used to get a reset).
func TestBodyGuardAnswersWholeBodyWriters(t *testing.T) {
	const limit = 1 << 20
	big := bytes.Repeat([]byte(" "), 12<<20)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		req     []byte
		status  int
		code    string
	}{
		{"declared length over the limit", readObjectHandler(limit), request("POST", "/x", big), 413, "request_too_large"},
		{"chunked body over the limit", readObjectHandler(limit), chunked("/x", big), 413, "request_too_large"},
		{"2 MiB", readObjectHandler(limit), request("POST", "/x", big[:2<<20]), 413, "request_too_large"},
		{"refused before reading", func(w http.ResponseWriter, r *http.Request) {
			Fail(w, http.StatusUnauthorized, "unauthorized", "A bearer token is required")
		}, request("POST", "/x", big), 401, "unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testutil.DialRaw(t, guarded(t, 30*time.Second, tt.handler))
			c.Write(tt.req)
			resp, body := c.Read()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if e := errorOf(t, body); e.Code != tt.code {
				t.Errorf("code %q, want %q", e.Code, tt.code)
			}
			if tt.status == 413 && !resp.Close {
				t.Errorf("a 413 keeps the connection open (Connection %q)", resp.Header.Get("Connection"))
			}
			if !c.Closed() {
				t.Errorf("the connection stayed open after the answer")
			}
		})
	}
}

// chunked is a POST whose body is sent in 64 KiB chunks, with no declared
// length.
func chunked(path string, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", path)
	for len(body) > 0 {
		n := min(len(body), 64<<10)
		fmt.Fprintf(&b, "%x\r\n", n)
		b.Write(body[:n])
		b.WriteString("\r\n")
		body = body[n:]
	}
	b.WriteString("0\r\n\r\n")
	return b.Bytes()
}

// TestBodyGuardKeepsNormalRequests: normal requests written whole before
// reading work, several on one connection, including one the handler
// answered without reading its short body.
func TestBodyGuardKeepsNormalRequests(t *testing.T) {
	read := readObjectHandler(1 << 20)
	c := testutil.DialRaw(t, guarded(t, 30*time.Second, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ignore" {
			WriteJSON(w, http.StatusOK, map[string]string{"ignored": "yes"})
			return
		}
		read(w, r)
	}))
	for i, path := range []string{"/x", "/ignore", "/x", "/x"} {
		c.Write(request("POST", path, []byte(`{"input":"hello","n":1}`)))
		resp, body := c.Read()
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("request %d (%s): %d close %v: %s", i, path, resp.StatusCode, resp.Close, body)
		}
	}
	c.Write(request("POST", "/x", []byte("{\"input\":\"\xff\"}")))
	if resp, body := c.Read(); resp.StatusCode != 400 || errorOf(t, body).Code != "invalid_json" {
		t.Fatalf("invalid UTF-8: %d %s", resp.StatusCode, body)
	}
}

// TestBodyGuardExpectContinue: a client that waits for "100 Continue"
// before sending an oversized body gets the 413 without sending it.
func TestBodyGuardExpectContinue(t *testing.T) {
	c := testutil.DialRaw(t, guarded(t, 30*time.Second, readObjectHandler(1<<20)))
	c.Write([]byte("POST /x HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 12582912\r\nExpect: 100-continue\r\n\r\n"))
	resp, body := c.Read()
	if resp.StatusCode != 413 || errorOf(t, body).Code != "request_too_large" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

// TestBodyGuardCutsSlowBodies: a body sent a byte at a time ends with 408
// and a closed connection, whether the handler answers its read error or
// not, and whether or not it had read anything.
func TestBodyGuardCutsSlowBodies(t *testing.T) {
	const timeout = 300 * time.Millisecond
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"ReadObject", readObjectHandler(1 << 20)},
		{"handler writes nothing", func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.ReadAll(r.Body); err == nil {
				w.WriteHeader(http.StatusNoContent)
			}
		}},
		{"handler sees ErrBodyTimeout", func(w http.ResponseWriter, r *http.Request) {
			_, err := io.ReadAll(r.Body)
			if !errors.Is(err, ErrBodyTimeout) {
				Fail(w, http.StatusTeapot, "wrong_error", fmt.Sprintf("read error %v", err))
				return
			}
			Fail(w, http.StatusBadRequest, "invalid_body", "The request body could not be read")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testutil.DialRaw(t, guarded(t, timeout, tt.handler))
			c.Write([]byte("POST /x HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"))
			// Drip bytes until the server answers; at most 5 s of them.
			stop := c.Drip()
			resp, body := c.Read()
			stop()
			if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
				t.Fatalf("status %d close %v, want 408 and close: %s", resp.StatusCode, resp.Close, body)
			}
			if e := errorOf(t, body); e.Code != "request_timeout" || !strings.Contains(e.Detail, "300ms") {
				t.Errorf("error %+v", e)
			}
			if !c.Closed() {
				t.Errorf("the connection stayed open after the 408")
			}
		})
	}
}

// TestBodyGuardStreamOutlivesBodyTimeout: once its body is read, a
// response may stream for much longer than the body timeout, and its
// request context is not cancelled (net/http's background read would treat
// a passed deadline as the client going away).
func TestBodyGuardStreamOutlivesBodyTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	for _, mode := range []string{"read to the end", "closed after reading", "body never read"} {
		t.Run(mode, func(t *testing.T) {
			var cancelled atomic.Bool
			addr := guarded(t, timeout, func(w http.ResponseWriter, r *http.Request) {
				switch mode {
				case "read to the end":
					_, _ = io.ReadAll(r.Body)
				case "closed after reading":
					_, _ = r.Body.Read(make([]byte, 1))
					_ = r.Body.Close()
				}
				w.Header().Set("Content-Type", "text/event-stream")
				rc := http.NewResponseController(w)
				for i := 0; i < 8; i++ {
					if _, err := fmt.Fprintf(w, "data: %d\n\n", i); err != nil {
						return
					}
					_ = rc.Flush()
					select {
					case <-r.Context().Done():
						cancelled.Store(true)
						return
					case <-time.After(timeout / 2):
					}
				}
			})
			c := testutil.DialRaw(t, addr)
			c.Write(request("POST", "/stream", []byte(`{"input":"hi"}`)))
			resp, got := c.Read()
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, got)
			}
			if n := strings.Count(string(got), "data: "); n != 8 || cancelled.Load() {
				t.Fatalf("%d events of 8, context cancelled %v: %q", n, cancelled.Load(), got)
			}
		})
	}
}

// TestBodyGuardHijack: a handler that takes the connection over gets it
// without the body deadline, even when it did not read the body.
func TestBodyGuardHijack(t *testing.T) {
	const timeout = 200 * time.Millisecond
	addr := guarded(t, timeout, func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			Fail(w, http.StatusInternalServerError, "no_hijack", err.Error())
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		_ = rw.Flush()
		line, err := rw.ReadString('\n') // sent after the body timeout
		if err != nil {
			line = "error: " + err.Error() + "\n"
		}
		_, _ = rw.WriteString(line)
		_ = rw.Flush()
	})
	c := testutil.DialRaw(t, addr)
	c.Write(request("POST", "/upgrade", []byte(`{}`), "Upgrade: echo", "Connection: Upgrade"))
	_ = c.Conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(c.Reader, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	time.Sleep(3 * timeout)
	c.Write([]byte("ping\n"))
	line, err := c.Reader.ReadString('\n')
	if err != nil || line != "{}ping\n" { // the unread body, then what followed
		t.Fatalf("after the body timeout the hijacked connection answered %q, %v", line, err)
	}
}

// TestBodyGuardWithoutConnection: behind a ResponseRecorder (no connection,
// no deadlines) the guard passes requests through.
func TestBodyGuardWithoutConnection(t *testing.T) {
	h := BodyGuard(time.Second, readObjectHandler(16))
	for _, tt := range []struct {
		body   string
		status int
	}{{`{"a":1}`, 200}, {`{"a":"` + strings.Repeat("x", 32) + `"}`, 413}} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(tt.body)))
		if w.Code != tt.status {
			t.Errorf("%s: %d %s", tt.body, w.Code, w.Body)
		}
	}
}
