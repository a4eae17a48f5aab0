package a2a

import (
	"net/http"
	"strconv"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/harnest/harnest/internal/httplog"
)

// serveGRPC serves one gRPC call (an HTTP/2 request) with gs and notes on
// the request's record what the call was (httplog.NoteGRPC): its method,
// its status code and its caller, which the request log writes and the
// metrics count. It observes the call from the HTTP side rather than from
// an interceptor, so that it also sees the calls no interceptor runs for
// (an unknown method, answered Unimplemented by grpc itself), and so that
// what it notes is there when the HTTP request ends: grpc runs a method on
// a goroutine of its own, which may still run when a caller that went
// away has ended the request.
func (s *Server) serveGRPC(gs *grpc.Server, w http.ResponseWriter, r *http.Request) {
	gs.ServeHTTP(w, r)
	call := httplog.GRPCCall{Method: grpcMethodLabel(r.URL.Path), Code: grpcStatusName(w, r)}
	if c := callOf(r.Context()); c != nil && c.denied == "" {
		call.User = s.principalOf(r.Context()).UserID
	}
	httplog.NoteGRPC(w, call)
}

// grpcMethods are the full method names of the A2A service, the only
// values of the method label besides "unknown".
var grpcMethods = func() map[string]bool {
	desc := a2apb.A2AService_ServiceDesc
	m := map[string]bool{}
	for _, md := range desc.Methods {
		m["/"+desc.ServiceName+"/"+md.MethodName] = true
	}
	for _, sd := range desc.Streams {
		m["/"+desc.ServiceName+"/"+sd.StreamName] = true
	}
	return m
}()

// grpcMethodLabel is path when it names a method of the service, else
// "unknown": a caller may send any path, and a label must stay bounded.
func grpcMethodLabel(path string) string {
	if grpcMethods[path] {
		return path
	}
	return "unknown"
}

// grpcStatusName is the name of the status code grpc answered the call with (the
// grpc-status trailer it set on w): "OK", "Unauthenticated", ... A call
// that got no status was cut short: "Canceled" when the caller went away,
// "Unknown" otherwise.
func grpcStatusName(w http.ResponseWriter, r *http.Request) string {
	h := w.Header()
	v := h.Get("Grpc-Status")
	if v == "" {
		v = h.Get(http.TrailerPrefix + "Grpc-Status")
	}
	n, err := strconv.ParseUint(v, 10, 32)
	switch {
	case err == nil && n <= uint64(codes.Unauthenticated):
		return codes.Code(n).String()
	case r.Context().Err() != nil:
		return codes.Canceled.String()
	}
	return codes.Unknown.String()
}
