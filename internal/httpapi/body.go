package httpapi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// How much of a body the server still reads after the handler answered
// without reading all of it (an oversized body answered with 413, or a
// request refused before its body was looked at). Clients that write the
// whole body before reading the answer — Python's urllib among them — get
// a connection reset instead of the answer when the server closes while
// they are still writing; reading the rest lets their write complete.
// Past these bounds the connection is closed anyway.
const (
	drainMaxBytes = 16 << 20
	drainMaxTime  = 5 * time.Second
)

// ErrBodyTimeout is what a handler's read of the request body returns when
// the client did not send the body within the body timeout. The request
// then ends with 408 (see BodyGuard).
var ErrBodyTimeout = errors.New("the request body did not arrive within the body timeout")

// BodyGuard bounds how a request body arrives, for every route behind it:
//
//   - A request with a body must deliver all of it within timeout of the
//     handler starting (a read deadline on the connection; 0 sets none).
//     The deadline is cleared once the body has been read to its end or
//     closed, so that the responses that follow — SSE streams, long polls,
//     WebSockets — are never cut by it. A body that times out ends the
//     request with 408 {"detail","code":"request_timeout"} (replacing
//     whatever error the handler writes, unless it had already answered)
//     and the connection is closed.
//   - When the handler answers without reading the whole body (413 for an
//     oversized body, 401, 404), the rest of the body is read and
//     discarded, up to 16 MiB or 5 s and never past the body deadline, so
//     that a client still writing its body gets to read the answer
//     instead of a connection reset. A 413 answered before the end of the
//     body closes the connection.
//
// It must wrap the handlers that read bodies, inside the request log so
// that the 408 is logged.
func BodyGuard(timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		g := &guard{} // the body and the writer in one allocation
		b, gw := &g.body, &g.writer
		b.src, b.w = r.Body, w
		if timeout > 0 {
			at := time.Now().Add(timeout)
			if b.setReadDeadline(at) == nil {
				b.deadline, b.deadlineAt = true, at
			}
		}
		gw.ResponseWriter, gw.body, gw.timeout = w, b, timeout
		// The handler reads the guarded body from r itself, and r gets its
		// own body back when the handler returns: a copy of the request
		// (r.WithContext) would cost one allocation of ≈ 250 bytes per
		// request. Nothing outside reads r.Body meanwhile: the middlewares
		// outside this one never do, and net/http closes the body it made,
		// not r.Body.
		r.Body = b
		defer func() { r.Body = b.src }()
		next.ServeHTTP(gw, r)
		gw.finish(r)
	})
}

// guard is the guarded body and writer of one request.
type guard struct {
	body   guardedBody
	writer guardedWriter
}

// guardedBody is the request body as the handler reads it: it clears the
// body deadline at the end of the body and remembers how reading went.
type guardedBody struct {
	src io.ReadCloser
	w   http.ResponseWriter // the request's writer, for its read deadline

	mu         sync.Mutex
	deadline   bool      // a body deadline is set on the connection
	deadlineAt time.Time // when it passes (zero without a body timeout)
	read       int64     // bytes the handler read
	eof        bool      // the handler read to the end of the body
	closed     bool      // the handler closed the body
	timedOut   bool      // a read failed on the body deadline
	failed     bool      // a read failed otherwise (the client went away, a bad chunk)
}

func (b *guardedBody) Read(p []byte) (int, error) {
	n, err := b.src.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.read += int64(n)
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		b.eof = true
		b.clearDeadlineLocked()
	case errors.Is(err, os.ErrDeadlineExceeded):
		b.timedOut = true
		err = fmt.Errorf("%w: %w", ErrBodyTimeout, err)
	default:
		b.failed = true
	}
	return n, err
}

func (b *guardedBody) Close() error {
	b.mu.Lock()
	b.closed = true
	b.clearDeadlineLocked()
	b.mu.Unlock()
	return b.src.Close()
}

// setReadDeadline sets the connection's read deadline (a zero at clears
// it). It makes its http.ResponseController here, in a method, where the
// compiler keeps it off the heap.
func (b *guardedBody) setReadDeadline(at time.Time) error {
	return http.NewResponseController(b.w).SetReadDeadline(at)
}

// clearDeadlineLocked lifts the body deadline: what follows the body is
// the response, which may take as long as it needs.
func (b *guardedBody) clearDeadlineLocked() {
	if b.deadline {
		b.deadline = false
		_ = b.setReadDeadline(time.Time{})
	}
}

func (b *guardedBody) hasTimedOut() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.timedOut
}

// unfinished reports whether the client may still be sending a body the
// handler did not read to its end.
func (b *guardedBody) unfinished() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.eof && !b.closed && !b.timedOut && !b.failed
}

// drain reads and discards the rest of the body of r, within the drain
// bounds and the body deadline, so that a client that writes its whole
// body before reading gets to read the answer.
func (b *guardedBody) drain(r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.eof || b.closed || b.timedOut || b.failed {
		return
	}
	if b.read == 0 && strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		return // the client waits for "100 Continue" and has sent nothing
	}
	if r.ContentLength > 0 && r.ContentLength-b.read > drainMaxBytes {
		return // more than the bound: the client cannot be helped
	}
	until := time.Now().Add(drainMaxTime)
	if b.deadline && b.deadlineAt.Before(until) {
		until = b.deadlineAt
	}
	if b.setReadDeadline(until) == nil {
		b.deadline = true
	}
	// Send the answer first: a client that reads while it writes can stop.
	_ = http.NewResponseController(b.w).Flush()
	n, err := io.CopyN(io.Discard, b.src, drainMaxBytes)
	b.read += n
	// ErrBodyReadAfterClose: net/http read the (short) rest itself when the
	// answer was flushed.
	if errors.Is(err, io.EOF) || errors.Is(err, http.ErrBodyReadAfterClose) {
		b.eof = true
		b.clearDeadlineLocked()
	}
	// Otherwise the deadline stays: what remains unread makes net/http
	// close the connection, and it must not wait for it.
}

// guardedWriter passes the handler's answer through, except after a body
// timeout, when the answer is 408. It is not a statuswriter.Writer: its
// Write, Flush and Hijack decide what goes out (a 408 instead) and lift
// the body deadline before a hijack.
type guardedWriter struct {
	http.ResponseWriter
	body    *guardedBody
	timeout time.Duration

	once     sync.Once
	swallow  atomic.Bool // the handler's output is dropped (a 408 went instead)
	hijacked atomic.Bool
}

// begin runs before the handler's first status or body byte reaches the
// client (code is the status it is about to send). It reports whether the
// handler's output goes through.
func (w *guardedWriter) begin(code int) bool {
	w.once.Do(func() {
		if w.body.hasTimedOut() {
			w.writeTimeout()
			w.swallow.Store(true)
			return
		}
		if code == http.StatusRequestEntityTooLarge && w.body.unfinished() {
			w.Header().Set("Connection", "close")
		}
	})
	return !w.swallow.Load()
}

// writeTimeout answers 408 and closes the connection.
func (w *guardedWriter) writeTimeout() {
	w.Header().Set("Connection", "close")
	Fail(w.ResponseWriter, http.StatusRequestTimeout, "request_timeout",
		fmt.Sprintf("The request body did not arrive within %s; send the whole body without pausing", w.timeout))
}

func (w *guardedWriter) WriteHeader(code int) {
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		w.ResponseWriter.WriteHeader(code) // informational: the real answer follows
		return
	}
	if w.begin(code) {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *guardedWriter) Write(p []byte) (int, error) {
	if !w.begin(http.StatusOK) {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// FlushError flushes through to the connection (http.ResponseController
// and internal/sse use it).
func (w *guardedWriter) FlushError() error {
	if !w.begin(http.StatusOK) {
		return nil
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush is FlushError for callers that use http.Flusher.
func (w *guardedWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach deadlines and full duplex.
func (w *guardedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack hands the connection over without the body deadline.
func (w *guardedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.body.mu.Lock()
	w.body.clearDeadlineLocked()
	w.body.mu.Unlock()
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.hijacked.Store(true)
	}
	return conn, rw, err
}

// finish runs after the handler: the 408 of a body timeout the handler did
// not answer, or the drain of a body it did not read.
func (w *guardedWriter) finish(r *http.Request) {
	if w.hijacked.Load() {
		return
	}
	if w.body.hasTimedOut() {
		w.begin(http.StatusRequestTimeout)
		return
	}
	w.body.drain(r)
}
