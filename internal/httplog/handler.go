package httplog

import (
	"io"
	"log/slog"
	"sync"
)

// Handler is harnest's log handler: slog's text or JSON handler, whose
// request lines (one per request, see Middleware) Middleware formats
// itself, to the same bytes, without slog's per-record work (a Record,
// its attributes, the caller's program counter). Every other record goes
// through slog's handler as usual. Make one with NewTextHandler or
// NewJSONHandler and wrap it with slog.New.
//
// Its methods are slog's handler's (embedded); a handler derived with
// WithAttrs or WithGroup is slog's own, so a request log written through
// one goes through slog.
type Handler struct {
	slog.Handler // slog's text or JSON handler, writing through out

	out  *lockedWriter
	json bool
	// formatsRequests: the options change nothing in a request line (no
	// ReplaceAttr, no source), so Middleware may format it itself.
	formatsRequests bool
}

// NewTextHandler is slog.NewTextHandler(w, opts) whose request lines
// Middleware formats itself.
func NewTextHandler(w io.Writer, opts *slog.HandlerOptions) *Handler {
	out := &lockedWriter{w: w}
	return &Handler{Handler: slog.NewTextHandler(out, opts), out: out, formatsRequests: plainOptions(opts)}
}

// NewJSONHandler is slog.NewJSONHandler(w, opts) whose request lines
// Middleware formats itself.
func NewJSONHandler(w io.Writer, opts *slog.HandlerOptions) *Handler {
	out := &lockedWriter{w: w}
	return &Handler{Handler: slog.NewJSONHandler(out, opts), out: out, json: true, formatsRequests: plainOptions(opts)}
}

// plainOptions reports whether opts leave a record's built-in attributes
// as slog writes them by default.
func plainOptions(opts *slog.HandlerOptions) bool {
	return opts == nil || (opts.ReplaceAttr == nil && !opts.AddSource)
}

// lockedWriter serializes the writes of slog's handler and of Middleware's
// own lines to one writer, as slog's handler alone would (it takes a lock
// of its own around each write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lineBuffers hold request lines while they are formatted.
var lineBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 512)
	return &b
}}

// maxPooledLine bounds the buffers kept in lineBuffers.
const maxPooledLine = 4 << 10

// writeRequest formats the request line l and writes it out, in one
// Write as slog's handler does. It reports false, writing nothing, when a value of l would need
// quoting or escaping: slog then writes the line (see Middleware).
func (h *Handler) writeRequest(l *line) bool {
	if !l.plain() {
		return false
	}
	bp := lineBuffers.Get().(*[]byte)
	b, ok := (*bp)[:0], false
	if h.json {
		b, ok = l.appendJSON(b)
	} else {
		b, ok = l.appendText(b)
	}
	if ok {
		_, _ = h.out.Write(b) // as slog's handler, whose error LogAttrs drops
	}
	if cap(b) <= maxPooledLine {
		*bp = b
		lineBuffers.Put(bp)
	}
	return ok
}
