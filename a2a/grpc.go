package a2a

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/runtime"
)

// The gRPC binding (A2A 1.0, service lf.a2a.v1.A2AService, the official
// generated types of a2a-go v2): served on the same port as everything
// else, over HTTP/2 cleartext (h2c) or TLS. WithGRPC sends the gRPC calls
// to a grpc.Server (ServeHTTP); its methods (grpc_service.go) call the same
// handler core as the JSON-RPC and HTTP+JSON bindings. Callers authenticate
// with the same bearer tokens, sent as the authorization metadata (the
// HTTP/2 Authorization header).

// grpcServicePath is the path prefix of every method of the service.
const grpcServicePath = "/" + "lf.a2a.v1.A2AService" + "/"

// checkGRPCInterface checks a GRPC entry of supportedInterfaces: A2A 1.0,
// and a url that is a gRPC target: "host:port" (what gRPC clients such as
// a2a-go dial), "dns:///host:port", or http(s)://host:port without a path.
func checkGRPCInterface(rawURL, version string) error {
	if version != v10 {
		return fmt.Errorf("protocolBinding GRPC is served for protocolVersion \"1.0\" only; use JSONRPC or HTTP+JSON for 0.3")
	}
	if _, err := grpcHostPort(rawURL); err != nil {
		return fmt.Errorf("url %q: %w", clip(rawURL), err)
	}
	return nil
}

// grpcHostPort reads the host:port of a GRPC interface url.
func grpcHostPort(raw string) (string, error) {
	hostPort := strings.TrimPrefix(raw, "dns:///")
	if strings.HasPrefix(raw, "http://") || strings.HasPrefix(raw, "https://") {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
			return "", fmt.Errorf("a gRPC url is host:port (or http(s)://host:port without a path)")
		}
		hostPort = u.Host
		if u.Port() == "" {
			hostPort = defaultPort(u)
		}
	}
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil || host == "" || port == "" {
		return "", fmt.Errorf("a gRPC url is host:port, such as 127.0.0.1:1907")
	}
	return hostPort, nil
}

// servedGRPCURL is a GRPC interface url as the served card gives it: the
// host:port gRPC clients dial (a2a-go hands the url to grpc.NewClient as
// it is). With a public base URL it is the base's host and port, since the
// binding is served on the same port as the rest.
func servedGRPCURL(raw string, base *url.URL) string {
	if base != nil {
		if base.Port() != "" {
			return base.Host
		}
		return defaultPort(base)
	}
	if hostPort, err := grpcHostPort(raw); err == nil {
		return hostPort
	}
	return raw
}

// defaultPort is an http(s) URL's host with the scheme's port.
func defaultPort(u *url.URL) string {
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// ServesGRPC reports whether the card declares a GRPC interface.
func (s *Server) ServesGRPC() bool {
	for _, m := range s.mounts {
		if m.binding == bindingGRPC {
			return true
		}
	}
	return false
}

// WithGRPC returns next with the gRPC binding in front of it: HTTP/2
// requests whose Content-Type is application/grpc go to the A2A gRPC
// service, everything else to next. authn resolves the caller from the
// bearer token as the HTTP middleware does (nil: everyone is anonymous).
// Without a GRPC interface in the card it returns next unchanged. The
// server that serves the handler must speak HTTP/2, cleartext included
// (http.Server.Protocols with SetUnencryptedHTTP2).
func (s *Server) WithGRPC(next http.Handler, authn *auth.Authenticator) http.Handler {
	if !s.ServesGRPC() {
		return next
	}
	gs := grpc.NewServer(
		grpc.MaxRecvMsgSize(int(s.maxBody)),
		grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := s.admitGRPC(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := s.admitGRPC(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	)
	a2apb.RegisterA2AServiceServer(gs, &grpcService{s: s})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			next.ServeHTTP(w, r)
			return
		}
		call := &grpcCall{}
		ctx := r.Context()
		if authn == nil || !authn.Enabled() {
			ctx = auth.With(ctx, runtime.Anonymous)
		} else {
			token, has := auth.BearerToken(r)
			p, ok := authn.Resolve(token)
			switch {
			case !has:
				call.denied = "Authentication required: send the metadata authorization: Bearer <token>"
			case !ok:
				call.denied = "The bearer token is not valid"
			default:
				ctx = auth.With(ctx, p)
			}
		}
		r = r.WithContext(context.WithValue(ctx, grpcCallKey{}, call))
		call.r = r
		s.serveGRPC(gs, w, r) // grpc_observe.go: the request log and metrics learn the call
	})
}

// grpcCall is what the HTTP side learned of a gRPC call: its request (for
// the principal, the version and the extensions) and why the caller is
// refused, if it is.
type grpcCall struct {
	r      *http.Request
	denied string
}

type grpcCallKey struct{}

// callOf returns the call of a method's context; nil outside WithGRPC.
func callOf(ctx context.Context) *grpcCall {
	c, _ := ctx.Value(grpcCallKey{}).(*grpcCall)
	return c
}

// principalOf is the caller of a gRPC method, read as the other bindings
// read theirs (Options.Principal on the request).
func (s *Server) principalOf(ctx context.Context) runtime.Principal {
	if c := callOf(ctx); c != nil {
		return s.principal(c.r)
	}
	return runtime.Principal{}
}

// admitGRPC runs before every method: the caller must be authenticated,
// the A2A-Version metadata (when sent) must be 1.0, and required
// extensions must be activated; the activated ones are echoed in the
// a2a-extensions header metadata.
func (s *Server) admitGRPC(ctx context.Context) error {
	c := callOf(ctx)
	if c == nil {
		return status.Error(codes.Internal, "The gRPC call did not pass through harnest's HTTP handler")
	}
	if c.denied != "" {
		return status.Error(codes.Unauthenticated, c.denied)
	}
	if v := requestVersion(c.r); v != "" && v != v10 {
		return grpcError(errVersion(fmt.Sprintf("A2A version %q is not served over gRPC; it serves 1.0", clip(v))))
	}
	hw := headerWriter{h: http.Header{}}
	if e := s.checkExtensions(hw, c.r, v10); e != nil {
		return grpcError(e)
	}
	if active := hw.h.Get("A2A-Extensions"); active != "" {
		_ = grpc.SetHeader(ctx, metadata.Pairs("a2a-extensions", active))
	}
	return nil
}

// headerWriter collects the headers checkExtensions sets; gRPC sends them
// as metadata.
type headerWriter struct{ h http.Header }

func (w headerWriter) Header() http.Header         { return w.h }
func (w headerWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w headerWriter) WriteHeader(int)             {}
