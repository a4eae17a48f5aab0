package httplog

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// wrapper is a middleware's writer, as metrics and the body guard wrap it.
type wrapper struct{ http.ResponseWriter }

func (w wrapper) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestRecordSharesTheRoute: the pattern the mux served a request by is
// noted once (Routes), through the middlewares' writers and copies of the
// request, and every middleware reads it from the record; a request the
// mux never saw is matched once, then read from the record.
func TestRecordSharesTheRoute(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sessions/{id}", func(http.ResponseWriter, *http.Request) {})
	other := http.NewServeMux() // a mux that would match differently
	other.HandleFunc("GET /", func(http.ResponseWriter, *http.Request) {})

	serve := func(path string, inner http.Handler) (route string) {
		log, _ := newLogger()
		h := Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inner.ServeHTTP(wrapper{w}, r.WithContext(r.Context())) // as the body guard hands it on
			route = RecordOf(wrapper{w}).Route(other, r)
		}))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
		return route
	}
	if got := serve("/sessions/s1", Routes(mux)); got != "GET /sessions/{id}" {
		t.Errorf("Route after Routes = %q, want the pattern the mux served", got)
	}
	if got := serve("/nowhere", Routes(mux)); got != "" {
		t.Errorf("Route of a request no pattern matched = %q", got)
	}
	refused := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := RecordOf(w)
		if got := rec.Route(mux, r); got != "GET /sessions/{id}" {
			t.Errorf("Route of a request the mux did not serve = %q", got)
		}
		w.WriteHeader(http.StatusUnauthorized)
	})
	if got := serve("/sessions/s2", refused); got != "GET /sessions/{id}" {
		t.Errorf("Route matched again: %q", got)
	}

	var none *Record
	if RecordOf(httptest.NewRecorder()) != nil {
		t.Error("a record outside Middleware")
	}
	if _, ok := none.GRPC(); ok || none.Route(mux, httptest.NewRequest(http.MethodGet, "/sessions/s3", nil)) != "GET /sessions/{id}" {
		t.Error("a nil record does not match or says it was a gRPC call")
	}
}

// TestLogsGRPCCall: a request that was a gRPC call is logged with its
// method, code and user besides the usual keys; NoteGRPC outside
// Middleware does nothing.
func TestLogsGRPCCall(t *testing.T) {
	log, buf := newLogger()
	h := Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("the recorder is not an http.Flusher (gRPC needs one)")
		}
		NoteGRPC(wrapper{w}, GRPCCall{Method: "/lf.a2a.v1.A2AService/GetTask", Code: "NotFound", User: "alice"})
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/lf.a2a.v1.A2AService/GetTask", nil))
	m := oneLine(t, buf)
	if m["grpcMethod"] != "/lf.a2a.v1.A2AService/GetTask" || m["grpcCode"] != "NotFound" || m["user"] != "alice" ||
		m["method"] != "POST" || m["status"] != float64(200) || m["requestId"] == nil {
		t.Errorf("log line %v", m)
	}
	NoteGRPC(httptest.NewRecorder(), GRPCCall{Method: "x"})
}
