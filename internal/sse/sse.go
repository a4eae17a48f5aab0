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
	err error
	ka  *time.Timer
	kaD time.Duration
}

// frameBuffers holds the buffers frames are assembled in. A Writer takes
// one for each frame and gives it back at once, so that an idle stream —
// a follower waiting for the next event, of which a server may hold
// thousands — keeps no buffer.
var frameBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledFrame bounds the buffers kept for reuse: a rare large frame
// (a long completed response) is not kept.
const maxPooledFrame = 64 << 10

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
	buf := frameBuffers.Get().(*[]byte)
	b := appendFrame((*buf)[:0], name, id, data)
	_, err := s.w.Write(b)
	if cap(b) <= maxPooledFrame {
		*buf = b
		frameBuffers.Put(buf)
	}
	if err != nil {
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

// appendFrame appends one SSE frame to b.
func appendFrame(b []byte, name string, id int, data []byte) []byte {
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
	return append(b, '\n', '\n')
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

// keepAliveComment is the comment a stream gets while idle (shared:
// writers never change what they are given).
var keepAliveComment = []byte(": keep-alive\n\n")

func (s *Writer) keepAlive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if _, err := s.w.Write(keepAliveComment); err != nil {
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
