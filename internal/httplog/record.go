package httplog

import "net/http"

// Record is what the middlewares of one request share, so that each fact
// is found once: the route pattern the mux served the request by (the
// request log, metrics and traces all label by it) and, for a gRPC call,
// what the call was. It lives in the request log's response writer
// (Middleware), so that it costs no allocation and no copy of the request;
// the middlewares and handlers inside reach it through their writers
// (RecordOf). It is used from the request's own goroutine only: the
// middlewares read it after the handler returned.
type Record struct {
	routed  bool      // the mux served the request (Routes)
	matched bool      // the route was matched here because the mux did not
	pattern string    // the route pattern; "" when none matched
	grpc    *GRPCCall // the call the request was; nil for any other request
}

// GRPCCall is a gRPC call as the request log and metrics report it.
type GRPCCall struct {
	// Method is the full method ("/lf.a2a.v1.A2AService/SendMessage"), or
	// "unknown" for a method the server does not have.
	Method string
	// Code is the status code's name ("OK", "Unauthenticated", ...).
	Code string
	// User is the caller's user ID; "" when the call was refused before
	// the caller was known.
	User string
}

// maxWrappers bounds the walk through the middlewares' writers.
const maxWrappers = 16

// RecordOf is the record of the request w answers: the request log's,
// found through the writers the middlewares wrapped it in (each one's
// Unwrap). It is nil when w is not inside Middleware.
func RecordOf(w http.ResponseWriter) *Record {
	for range maxWrappers {
		switch v := w.(type) {
		case *recorder:
			return &v.record
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
	return nil
}

// Routes serves mux and notes in the request's record the pattern mux
// served it by, as routing found it (http.Request.Pattern): the one route
// match of the request. Wrap the mux itself with it, inside every
// middleware, since they may hand the mux a copy of the request.
func Routes(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		if rec := RecordOf(w); rec != nil {
			rec.routed, rec.pattern = true, r.Pattern
		}
	})
}

// Route is the route pattern of mux that serves r ("" when none does):
// the one Routes noted, or for a request that never reached the mux (a
// 401, a 408, a preflight) the one mux.Handler finds, once per request.
// A nil record matches every time.
func (rec *Record) Route(mux *http.ServeMux, r *http.Request) string {
	if rec == nil {
		_, pattern := mux.Handler(r)
		return pattern
	}
	if !rec.routed && !rec.matched {
		_, rec.pattern = mux.Handler(r)
		rec.matched = true
	}
	return rec.pattern
}

// NoteGRPC records that the request w answers was the gRPC call c
// (nothing outside Middleware).
func NoteGRPC(w http.ResponseWriter, c GRPCCall) {
	if rec := RecordOf(w); rec != nil {
		rec.grpc = &c
	}
}

// GRPC is the gRPC call the request was; ok is false for any other
// request.
func (rec *Record) GRPC() (call GRPCCall, ok bool) {
	if rec == nil || rec.grpc == nil {
		return GRPCCall{}, false
	}
	return *rec.grpc, true
}
