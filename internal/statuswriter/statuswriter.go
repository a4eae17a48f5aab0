// Package statuswriter is the response writer the request middlewares
// wrap a handler's writer in (the request log, metrics, traces), one type
// for all: it remembers the status and the size of the answer, and keeps
// the writer transparent: flushing (Flush, FlushError), deadlines and full
// duplex (Unwrap, for http.ResponseController) and hijacking (WebSockets)
// pass through.
package statuswriter

import (
	"bufio"
	"errors"
	"net"
	"net/http"
)

// Watcher is told the status of the answer once, when it is known (as
// the header goes out, or 101 on a hijack).
type Watcher interface {
	Answered(status int)
}

// Writer wraps a ResponseWriter and remembers the status and the size of
// the answer. Set ResponseWriter (and Watch, if any) before use; a
// middleware may embed it in its own writer, to keep one allocation.
type Writer struct {
	http.ResponseWriter
	// Watch, when set, is told the status once (metrics counts event
	// streams by it).
	Watch Watcher

	status int
	bytes  int64
}

// Status is the status the handler answered with: 0 while nothing was
// written (net/http then answers 200), 101 after a hijack. Informational
// answers (1xx, such as 103 Early Hints) come before the real one and do
// not count.
func (w *Writer) Status() int { return w.status }

// Bytes is how many body bytes were written.
func (w *Writer) Bytes() int64 { return w.bytes }

// answered notes the status, once.
func (w *Writer) answered(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	if w.Watch != nil {
		w.Watch.Answered(status)
	}
}

func (w *Writer) WriteHeader(code int) {
	if code >= 200 {
		w.answered(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *Writer) Write(b []byte) (int, error) {
	w.answered(http.StatusOK)
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// FlushError flushes (http.ResponseController calls it first).
func (w *Writer) FlushError() error {
	w.answered(http.StatusOK)
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush is http.Flusher, which gRPC's HTTP handler requires of its
// response writer.
func (w *Writer) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach deadlines and the rest.
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack passes a WebSocket upgrade through; it is counted as 101.
func (w *Writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the response writer cannot be hijacked")
	}
	conn, rw, err := h.Hijack()
	if err == nil {
		w.answered(http.StatusSwitchingProtocols)
	}
	return conn, rw, err
}
