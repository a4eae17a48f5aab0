package openaiapi

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// SessionHeader names the session a chat completion continues, in the
// request, and the session it ran in, in every answer.
const SessionHeader = "Harnest-Session-Id"

// responseHeader names the response a chat completion ran as.
const responseHeader = "Harnest-Response-Id"

// defaultKeepAlive is the idle time after which a stream gets a comment.
const defaultKeepAlive = 15 * time.Second

// Options configure the OpenAI-compatible door.
type Options struct {
	Service      *runtime.Service
	Auth         *auth.Authenticator // the door answers 401 itself, in OpenAI's error shape
	AgentName    string              // metadata.name: the one model listed
	MaxBodyBytes int
	Logger       *slog.Logger
	// KeepAlive is the idle time after which a stream gets an SSE comment
	// (default 15 s).
	KeepAlive time.Duration
	// ChatCompletions serves /v1/models and /v1/chat/completions
	// (server.openaiCompat); Responses serves /v1/responses
	// (server.openResponses).
	ChatCompletions, Responses bool
	// Requests keeps what each Open Responses response repeats of its
	// request, and its input items (nil: nothing is kept, and a response
	// read back repeats only its metadata).
	Requests store.ResponseRequests
}

// IsPath reports the door's routes: the auth middleware lets them through
// so that the door refuses a missing token in OpenAI's error shape.
func IsPath(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/v1/") }

// door is the handler of /v1/.
type door struct {
	svc       *runtime.Service
	auth      *auth.Authenticator
	model     string
	maxBody   int64
	log       *slog.Logger
	keepAlive time.Duration
	created   int64 // the model's "created": when the door started (Unix seconds)
	chat      bool  // /v1/models and /v1/chat/completions are served
	responses bool  // /v1/responses is served
	requests  store.ResponseRequests
}

// New returns the handler of /v1/.
func New(o Options) http.Handler {
	d := &door{svc: o.Service, auth: o.Auth, model: o.AgentName, maxBody: int64(o.MaxBodyBytes),
		log: o.Logger, keepAlive: o.KeepAlive, created: time.Now().Unix(),
		chat: o.ChatCompletions, responses: o.Responses, requests: o.Requests}
	if d.maxBody <= 0 {
		d.maxBody = 1 << 20
	}
	if d.keepAlive <= 0 {
		d.keepAlive = defaultKeepAlive
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	return d
}

// ServeHTTP checks the caller, then routes the request.
func (d *door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p, ok := d.caller(w, r)
	if !ok {
		return
	}
	path := r.URL.Path
	if d.responses && (path == "/v1/responses" || strings.HasPrefix(path, "/v1/responses/")) {
		d.routeResponses(w, r, p)
		return
	}
	switch {
	case d.chat && path == "/v1/models":
		if allow(w, r, http.MethodGet) {
			d.listModels(w)
		}
	case d.chat && strings.HasPrefix(path, "/v1/models/"):
		if allow(w, r, http.MethodGet) {
			d.getModel(w, strings.TrimPrefix(path, "/v1/models/"))
		}
	case d.chat && path == "/v1/chat/completions":
		if allow(w, r, http.MethodPost) {
			d.chatCompletions(w, r, p)
		}
	default:
		writeFailure(w, http.StatusNotFound, failure{Type: typeInvalidRequest, Code: "unknown_url",
			Message: "Unknown route " + r.Method + " " + path + ": this server offers " + d.routeList()})
	}
}

// routeList names the routes the door serves.
func (d *door) routeList() string {
	var routes []string
	if d.chat {
		routes = append(routes, "GET /v1/models", "GET /v1/models/{id}", "POST /v1/chat/completions")
	}
	if d.responses {
		routes = append(routes, "POST /v1/responses", "GET /v1/responses/{id}", "POST /v1/responses/{id}/cancel", "GET /v1/responses/{id}/input_items")
	}
	return strings.Join(routes, ", ")
}

// caller returns the request's principal. With tokens configured, the
// door checks the bearer token itself (the auth middleware lets /v1/
// through), so a refusal is a 401 in OpenAI's shape; ok is false when it
// answered so.
func (d *door) caller(w http.ResponseWriter, r *http.Request) (runtime.Principal, bool) {
	if d.auth == nil || !d.auth.Enabled() {
		return auth.From(r.Context()), true
	}
	token, has := auth.BearerToken(r)
	if !has {
		unauthorized(w, "Authentication required: send your API key as Authorization: Bearer <token>")
		return runtime.Principal{}, false
	}
	p, ok := d.auth.Resolve(token)
	if !ok {
		unauthorized(w, "The API key (bearer token) is not valid: send one of the tokens this server is configured with")
		return runtime.Principal{}, false
	}
	return p, true
}

// allow answers 405 unless the request uses method.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	writeFailure(w, http.StatusMethodNotAllowed, failure{Type: typeInvalidRequest, Code: "method_not_allowed",
		Message: r.Method + " is not allowed on " + r.URL.Path + "; use " + method})
	return false
}
