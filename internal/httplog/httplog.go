// Package httplog writes one structured log line per HTTP request: method,
// path, status, duration, bytes and a request ID, and for a gRPC call its
// method, status code and user. It never logs headers, query strings,
// bodies or tokens, and it bounds what the client chose (the method, the
// path, the request ID), so that one request cannot write a long line:
// anyone can send a 900 KB path and get a 401 for it. Its Record is what
// the middlewares of one request share (the route, matched once; the gRPC
// call).
package httplog

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"
)

// Bounds on the client-supplied values of a log line, in bytes. A longer
// value is cut (see clip); request IDs longer than maxIDBytes are not
// echoed at all but replaced by a generated one.
const (
	maxMethodBytes = 32
	maxPathBytes   = 256
	maxIDBytes     = 64
)

// Middleware logs each request and sets the X-Request-Id response header
// (taken from the request when it is a short token, else generated). It
// is the outermost middleware: the request's Record lives in its writer
// (see RecordOf), and a request that was a gRPC call (NoteGRPC) is logged
// with its method, status code and user as well.
func Middleware(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !validID(id) {
			id = newID()
		}
		w.Header().Set("X-Request-Id", id)
		rec := &recorder{ResponseWriter: w}
		defer func() {
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			attrs := [9]slog.Attr{
				slog.String("method", clip(r.Method, maxMethodBytes)),
				slog.String("path", clip(r.URL.Path, maxPathBytes)),
				slog.Int("status", status),
				slog.Duration("duration", time.Since(start)),
				slog.Int64("bytes", rec.bytes),
				slog.String("requestId", id),
			}
			n := 6
			if call, ok := rec.record.GRPC(); ok {
				attrs[6] = slog.String("grpcMethod", call.Method)
				attrs[7] = slog.String("grpcCode", call.Code)
				attrs[8] = slog.String("user", clip(call.User, maxPathBytes))
				n = 9
			}
			log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs[:n]...)
		}()
		next.ServeHTTP(rec, r)
	})
}

// clip returns s, or when it is longer than max bytes its first max bytes
// or fewer (cut between characters), "…" and its original length, as in
// "/aaaa…(900001 bytes)".
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// validID reports whether a client's X-Request-Id can be echoed: a short
// token of letters, digits, '-' and '_'.
func validID(id string) bool {
	if id == "" || len(id) > maxIDBytes {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// recorder remembers the status and size; it keeps flushing (Flush),
// deadlines (Unwrap) and hijacking (WebSockets) working.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	record Record // what the middlewares share (record.go)
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// FlushError flushes (http.ResponseController calls it first).
func (r *recorder) FlushError() error {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return http.NewResponseController(r.ResponseWriter).Flush()
}

// Flush is http.Flusher, which gRPC's HTTP handler requires of its
// response writer.
func (r *recorder) Flush() { _ = r.FlushError() }

// Unwrap lets http.ResponseController reach deadlines and the rest.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Hijack passes a WebSocket upgrade through.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := r.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("httplog: the response writer cannot be hijacked")
	}
	if r.status == 0 {
		r.status = http.StatusSwitchingProtocols
	}
	return h.Hijack()
}
