package uichat

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/defaults"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
)

// Path is where the door is mounted: the AI SDK's default chat API.
const Path = "/api/chat"

// StreamHeader names the UI message stream protocol in every stream's
// answer, as the AI SDK's own servers do.
const StreamHeader = "x-vercel-ai-ui-message-stream"

// sessionHeader names the session (the chat) a stream belongs to.
const sessionHeader = "Harnest-Session-Id"

// defaultKeepAlive is the idle time after which a stream gets a comment.
const defaultKeepAlive = 15 * time.Second

// Options configure the useChat door.
type Options struct {
	Service      *runtime.Service
	MaxBodyBytes int
	Logger       *slog.Logger
	// KeepAlive is the idle time after which a stream gets an SSE comment
	// (default 15 s).
	KeepAlive time.Duration
}

// door is the handler of /api/chat and /api/chat/{id}/{stream|stop}.
type door struct {
	svc       *runtime.Service
	maxBody   int64
	log       *slog.Logger
	keepAlive time.Duration
}

// New returns the handler of /api/chat (mount it at Path and Path+"/").
func New(o Options) http.Handler {
	d := &door{svc: o.Service, maxBody: int64(o.MaxBodyBytes), log: o.Logger, keepAlive: o.KeepAlive}
	d.maxBody = defaults.Positive(d.maxBody, 1<<20)
	d.keepAlive = defaults.Positive(d.keepAlive, defaultKeepAlive)
	d.log = defaults.Logger(d.log)
	return d
}

// Routes lists the door's routes (for /agent and refusals).
const Routes = "POST /api/chat, GET /api/chat/{id}/stream, POST /api/chat/{id}/stop"

// ServeHTTP routes the request; the caller is already authenticated (the
// server's auth middleware answers 401 before).
func (d *door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := auth.From(r.Context())
	if r.URL.Path == Path {
		if allow(w, r, http.MethodPost) {
			d.post(w, r, p)
		}
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, Path+"/")
	id, action, ok := cutLast(rest)
	switch {
	case ok && action == "stream" && id != "":
		if allow(w, r, http.MethodGet) {
			d.resume(w, r, p, id)
		}
	case ok && action == "stop" && id != "":
		if allow(w, r, http.MethodPost) {
			d.stop(w, r, p, id)
		}
	default:
		httpapi.Fail(w, http.StatusNotFound, "not_found", "Unknown route "+r.Method+" "+r.URL.Path+": the useChat door offers "+Routes)
	}
}

// cutLast splits "{id}/{action}" at its last slash (a chat ID may hold
// escaped slashes, which the mux has decoded).
func cutLast(s string) (id, action string, ok bool) {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// allow answers 405 unless the request uses method.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	httpapi.Fail(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed on "+r.URL.Path+"; use "+method)
	return false
}
