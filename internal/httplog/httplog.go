// Package httplog writes one structured log line per HTTP request: method,
// path, status, duration, bytes and a request ID, and for a gRPC call its
// method, status code and user. It never logs headers, query strings,
// bodies or tokens, and it bounds what the client chose (the method, the
// path, the request ID), so that one request cannot write a long line:
// anyone can send a 900 KB path and get a 401 for it. Its Record is what
// the middlewares of one request share (the route, matched once; the gRPC
// call). Its Handler (NewTextHandler, NewJSONHandler) is slog's text or
// JSON handler whose request lines Middleware formats itself, to the same
// bytes: a busy server writes one per request.
package httplog

import (
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/harnest/harnest/internal/statuswriter"
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
// with its method, status code and user as well. When log's handler is
// harnest's own (NewTextHandler, NewJSONHandler), Middleware formats the
// line itself, to the bytes slog would write, at a fraction of the cost.
func Middleware(log *slog.Logger, next http.Handler) http.Handler {
	own, _ := log.Handler().(*Handler)
	if own != nil && !own.formatsRequests {
		own = nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !validID(id) {
			id = newID()
		}
		rec := &recorder{Writer: statuswriter.Writer{ResponseWriter: w}}
		// w.Header().Set("X-Request-Id", id) without allocating the
		// value's slice: the recorder holds it (the key is canonical).
		rec.idValue[0] = id
		w.Header()["X-Request-Id"] = rec.idValue[:]
		defer rec.logRequest(log, own, r, start, id)
		next.ServeHTTP(rec, r)
	})
}

// logRequest writes the request's line once the handler returned (or
// panicked), at info level: through own when it is set (log's handler),
// else through log.
func (rec *recorder) logRequest(log *slog.Logger, own *Handler, r *http.Request, start time.Time, id string) {
	ctx := r.Context()
	if !log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	status := rec.Status()
	if status == 0 {
		status = http.StatusOK
	}
	end := time.Now()
	l := line{at: end, method: clip(r.Method, maxMethodBytes), path: clip(r.URL.Path, maxPathBytes),
		status: status, duration: end.Sub(start), bytes: rec.Bytes(), id: id}
	if c := rec.record.grpc; c != nil {
		l.grpc = &GRPCCall{Method: c.Method, Code: c.Code, User: clip(c.User, maxPathBytes)}
	}
	if own != nil && own.writeRequest(&l) {
		return
	}
	l.log(ctx, log)
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

// newID is a request ID: 16 random hex digits. A request ID names a log
// line and guards nothing, so it comes from math/rand/v2's generator
// (ChaCha8, seeded by the runtime), not a read of crypto/rand, which cost
// each request a system call.
func newID() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// recorder is the request's writer as the request log wraps it: the
// status and size (statuswriter.Writer), and the record and request ID
// header value in the same allocation.
type recorder struct {
	statuswriter.Writer
	record  Record    // what the middlewares share (record.go)
	idValue [1]string // the X-Request-Id header's value
}
