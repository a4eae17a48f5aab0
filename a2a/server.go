package a2a

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/outbox"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Options configure the A2A bindings.
type Options struct {
	Service *runtime.Service
	// Store keeps the tasks, shared by every replica, and their push
	// notification configs.
	Store Store
	// Card is agent-card.yaml as decoded (config.Folder.Card): its
	// supportedInterfaces decide what is mounted.
	Card map[string]any
	// ExtendedCard is agent-card.extended.yaml as the folder loader
	// completes it (config.Folder.ExtendedCard: the public card with the
	// file's fields on top), served to authenticated callers; nil when the
	// folder has none.
	ExtendedCard map[string]any
	// PublicBaseURL, when set, replaces the scheme and host of every
	// interface URL in the served card (and prefixes its path), for
	// deployments behind a proxy: "https://agents.example.com".
	PublicBaseURL string
	Logger        *slog.Logger
	// MaxBodyBytes bounds every request body (default 1 MiB).
	MaxBodyBytes int
	// KeepAlive is the idle time after which a stream gets an SSE comment
	// (default 15 s).
	KeepAlive time.Duration
	// Principal resolves a request's caller (default: the auth
	// middleware's principal).
	Principal func(*http.Request) runtime.Principal
	// Alive configures the fetch of the alive extension's alive_json.
	Alive AliveOptions
	// Now is the clock of status timestamps (tests); default time.Now.
	Now func() time.Time
	// Outbox sends push notifications (push.go); without one they are
	// not offered (capabilities.pushNotifications stays false).
	Outbox *outbox.Dispatcher
}

// Store is what the A2A door keeps in the store: its tasks, their push
// notification configs, and the secret push notifications are signed with
// (push_sign.go).
type Store interface {
	store.Tasks
	store.PushConfigs
	store.Secrets
}

// Server serves the A2A bindings the card declares.
type Server struct {
	svc           *runtime.Service
	tasks         *taskStore
	log           *slog.Logger
	maxBody       int64
	keepAlive     time.Duration
	followTimeout time.Duration
	principal     func(*http.Request) runtime.Principal
	now           func() time.Time
	mounts        []mount
	info          *cardInfo
	extended      *cardInfo // nil without agent-card.extended.yaml
	streaming     bool
	push          *pushState // nil without Options.Outbox (push.go)
}

// New checks the card and builds the server. An interface harnest cannot
// serve, or a capability it does not provide, is an error; an invalid
// alive extension is left out of the served card with a warning (see
// Warnings), and the agent still serves.
func New(o Options) (*Server, error) {
	if o.Service == nil || o.Store == nil {
		return nil, errors.New("a2a: Options.Service and Options.Store are required")
	}
	mounts, err := parseMounts(o.Card)
	if err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	info, err := buildCard(context.Background(), o)
	if err != nil {
		return nil, err
	}
	extended, err := buildExtendedCard(context.Background(), o)
	if err != nil {
		return nil, err
	}
	if extended != nil {
		info.warnings = append(info.warnings, extended.warnings...)
	}
	for _, w := range info.warnings {
		log.Warn(w)
	}
	s := &Server{
		svc: o.Service, tasks: &taskStore{st: o.Store, svc: o.Service}, log: log, maxBody: int64(o.MaxBodyBytes), keepAlive: o.KeepAlive,
		followTimeout: 30 * time.Minute, principal: o.Principal, now: o.Now, mounts: mounts, info: info,
		extended: extended, streaming: info.streaming, push: newPushState(o.Outbox, o.Store, info.push),
	}
	if s.maxBody <= 0 {
		s.maxBody = 1 << 20
	}
	if s.keepAlive <= 0 {
		s.keepAlive = 15 * time.Second
	}
	if s.principal == nil {
		s.principal = func(r *http.Request) runtime.Principal { return auth.From(r.Context()) }
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.push != nil {
		o.Service.OnSwept(s.sweptTask) // push_swept.go
	}
	return s, nil
}

// Register mounts every interface the card declares on mux. It does not
// serve the card: mount CardHandler (or Card) at
// /.well-known/agent-card.json.
func (s *Server) Register(mux *http.ServeMux) {
	s.registerJWKS(mux)
	for _, m := range s.mounts {
		switch m.binding {
		case bindingJSONRPC:
			h := s.jsonrpcHandler(m)
			if m.path == "/" {
				mux.Handle("POST /{$}", h)
			} else {
				mux.Handle("POST "+m.path, h)
				mux.Handle("POST "+m.path+"/{$}", h)
			}
		case bindingREST:
			s.registerREST(mux, m)
		}
	}
}

// Endpoints lists the mounted interfaces for discovery: "a2aJsonrpc",
// "a2aRest" (with a numeric suffix when a binding is mounted twice) and
// "a2aGrpc" (the gRPC service's path prefix).
func (s *Server) Endpoints() map[string]string {
	out := map[string]string{}
	for _, m := range s.mounts {
		name := "a2aJsonrpc"
		switch m.binding {
		case bindingREST:
			name = "a2aRest"
		case bindingGRPC:
			out["a2aGrpc"] = grpcServicePath
			continue
		}
		key := name
		for i := 2; out[key] != ""; i++ {
			key = name + string(rune('0'+i))
		}
		out[key] = m.path
	}
	return out
}

// The request headers harnest reads, in the canonical form net/http keeps
// them in ("A2a-Version"), so that reading them converts nothing.
var (
	headerVersion      = http.CanonicalHeaderKey("A2A-Version")
	extensionHeaderKey = []string{http.CanonicalHeaderKey("A2A-Extensions"), http.CanonicalHeaderKey("X-A2A-Extensions")}
)

// extensionHeaders reads the extensions a request activates, from both
// header names (A2A-Extensions in 1.0, X-A2A-Extensions in 0.3).
func extensionHeaders(r *http.Request) []string {
	var out []string
	for _, name := range extensionHeaderKey {
		for _, v := range r.Header.Values(name) {
			for _, u := range strings.Split(v, ",") {
				if u = strings.TrimSpace(u); u != "" {
					out = append(out, u)
				}
			}
		}
	}
	return out
}

// checkExtensions refuses a request that does not activate a required
// extension, and echoes the activated ones in the version's header.
func (s *Server) checkExtensions(w http.ResponseWriter, r *http.Request, version string) *Error {
	requested := extensionHeaders(r)
	var active []string
	seen := map[string]bool{}
	for _, u := range requested {
		if s.info.declared[u] && !seen[u] {
			seen[u] = true
			active = append(active, u)
		}
	}
	var missing []string
	for _, u := range s.info.required {
		if !seen[u] {
			missing = append(missing, u)
		}
	}
	if len(missing) > 0 {
		e := errExtensionRequired("This agent requires the extensions " + strings.Join(missing, ", ") + "; activate them with the A2A-Extensions header")
		if version == v03 {
			e.Code = -32600 // 0.3 has no code of its own for it
		}
		return e
	}
	if len(active) > 0 {
		name := "A2A-Extensions"
		if version == v03 {
			name = "X-A2A-Extensions"
		}
		w.Header().Set(name, strings.Join(active, ", "))
	}
	return nil
}

// requestVersion reads A2A-Version (header or query), without its patch
// number; "" when absent.
func requestVersion(r *http.Request) string {
	v := strings.TrimSpace(r.Header.Get(headerVersion))
	if v == "" {
		v = strings.TrimSpace(r.URL.Query().Get("A2A-Version"))
	}
	if major, rest, ok := strings.Cut(v, "."); ok {
		if minor, _, ok := strings.Cut(rest, "."); ok {
			v = v[:len(major)+1+len(minor)] // "1.0.2" is "1.0"
		}
	}
	return v
}
