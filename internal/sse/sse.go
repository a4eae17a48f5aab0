// Package sse writes Server-Sent Events streams: named or unnamed frames,
// each flushed as it is written, and keep-alive comments while idle. The
// neutral API names its events; AG-UI sends unnamed data frames.
package sse

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Writer writes one SSE response. It is safe for one writer goroutine plus
// its own keep-alive timer.
type Writer struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
	err error
	ka  *time.Timer
	kaD time.Duration
}

// Start sends the stream's headers and a 200 status. keepAlive > 0 writes a
// comment after that much idle time, so proxies and clients keep the
// connection open.
func Start(w http.ResponseWriter, keepAlive time.Duration) *Writer {
	sw := Open(w, keepAlive)
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.flushLocked()
	return sw
}

// Open is Start for a stream whose first event follows at once (a new
// response's response.created): the headers go out with it, in one write,
// instead of on their own. A stream whose first event may wait uses Start,
// so the client sees the 200 at once.
func Open(w http.ResponseWriter, keepAlive time.Duration) *Writer {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sw := &Writer{w: w, rc: http.NewResponseController(w), kaD: keepAlive}
	if keepAlive > 0 {
		sw.ka = time.AfterFunc(keepAlive, sw.keepAlive)
	}
	return sw
}

// Event writes one frame: "event: <name>" when name is not empty, "id: <id>"
// when id >= 0, then the data line. data must not contain newlines (compact
// JSON never does).
func (s *Writer) Event(name string, id int, data []byte) error { return s.Write(name, id, data, true) }

// Write is Event that flushes only when flush is set: a caller that knows
// more events are queued writes them in one batch (one flush, one write to
// the socket) and flushes after the last.
func (s *Writer) Write(name string, id int, data []byte, flush bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	b := s.buf[:0]
	if name != "" {
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, '\n')
	}
	if id >= 0 {
		b = append(b, "id: "...)
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, '\n')
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	b = append(b, '\n', '\n')
	s.buf = b
	if _, err := s.w.Write(b); err != nil {
		s.err = err
		return err
	}
	if !flush {
		return nil
	}
	s.flushLocked()
	if s.ka != nil {
		s.ka.Reset(s.kaD)
	}
	return s.err
}

// Close stops the keep-alive timer. The handler returning ends the stream.
func (s *Writer) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ka != nil {
		s.ka.Stop()
	}
	if s.err == nil {
		s.err = http.ErrHandlerTimeout // nothing more may be written
	}
}

func (s *Writer) keepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if _, err := s.w.Write([]byte(": keep-alive\n\n")); err != nil {
		s.err = err
		return
	}
	s.flushLocked()
	s.ka.Reset(s.kaD)
}

func (s *Writer) flushLocked() {
	if err := s.rc.Flush(); err != nil && s.err == nil {
		s.err = err
	}
}
