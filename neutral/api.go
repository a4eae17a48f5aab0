package neutral

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/harnest/harnest/neutral/apidoc"
	"github.com/harnest/harnest/runtime"
)

// Options configure the neutral API.
type Options struct {
	Service *runtime.Service
	// MaxBodyBytes bounds every request body (limits.maxRequestBytes).
	MaxBodyBytes int
	// KeepAlive is the idle time after which an SSE stream gets a comment
	// (default 15 s).
	KeepAlive time.Duration
	// Discovery is what GET /agent and the agent card show.
	Discovery Discovery
	// CardHandler serves /.well-known/agent-card.json when set (the A2A
	// binding serves the card both A2A generations read); otherwise the
	// API serves Discovery.Card as it is.
	CardHandler http.Handler
}

// Discovery is the agent's identity and the routes the server enables; the
// server assembles it from every transport it mounts.
type Discovery struct {
	ID          string
	Name        string
	Description string
	Card        map[string]any
	Endpoints   map[string]string
	Resources   []Resource
}

// Resource is a machine-readable document that /agent points to.
type Resource struct {
	Name     string `json:"name"`
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
}

// API serves the neutral routes.
type API struct {
	cardHandler http.Handler
	svc         *runtime.Service
	maxBody     int
	keepAlive   time.Duration
	agentJSON   []byte
	cardJSON    []byte
}

// New builds the API.
func New(o Options) (*API, error) {
	a := &API{svc: o.Service, maxBody: o.MaxBodyBytes, keepAlive: o.KeepAlive, cardHandler: o.CardHandler}
	if a.maxBody <= 0 {
		a.maxBody = 1 << 20
	}
	if a.keepAlive <= 0 {
		a.keepAlive = 15 * time.Second
	}
	d := o.Discovery
	card := d.Card
	if card == nil {
		card = map[string]any{}
	}
	resources := d.Resources
	if resources == nil {
		resources = []Resource{}
	}
	var err error
	if a.cardJSON, err = json.Marshal(card); err != nil {
		return nil, err
	}
	a.agentJSON, err = json.Marshal(struct {
		ID          string            `json:"id"`
		Name        string            `json:"name"`
		Description string            `json:"description"`
		Card        json.RawMessage   `json:"card"`
		Endpoints   map[string]string `json:"endpoints"`
		Resources   []Resource        `json:"resources"`
		Contract    *agentContract    `json:"contract,omitempty"`
	}{d.ID, d.Name, d.Description, a.cardJSON, d.Endpoints, resources, contractOf(o.Service)})
	return a, err
}

// Endpoints are the /agent entries of the routes this package serves, as
// the OpenAPI document lists them (apidoc.Endpoints).
func Endpoints() map[string]string { return apidoc.Endpoints() }

// Register mounts the routes on mux.
func (a *API) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", a.healthz)
	mux.HandleFunc("GET /readyz", a.readyz)
	if a.cardHandler != nil {
		mux.Handle("GET /.well-known/agent-card.json", a.cardHandler)
	} else {
		mux.HandleFunc("GET /.well-known/agent-card.json", a.agentCard)
	}
	mux.HandleFunc("GET /agent", a.agent)
	mux.HandleFunc("POST /sessions", a.createSession)
	mux.HandleFunc("GET /sessions", a.listSessions)
	mux.HandleFunc("GET /sessions/{sessionId}", a.getSession)
	mux.HandleFunc("PATCH /sessions/{sessionId}", a.patchSession)
	mux.HandleFunc("DELETE /sessions/{sessionId}", a.deleteSession)
	mux.HandleFunc("GET /sessions/{sessionId}/messages", a.messages)
	mux.HandleFunc("POST /sessions/{sessionId}/compact", a.compactSession)    // compact.go
	mux.HandleFunc("GET /sessions/{sessionId}/responses", a.sessionResponses) // session_responses.go
	mux.HandleFunc("POST /responses", a.createResponse)
	mux.HandleFunc("GET /webhook-key", a.webhookKey) // webhook.go
	mux.HandleFunc("GET /responses/{responseId}", a.getResponse)
	mux.HandleFunc("GET /responses/{responseId}/events", a.getEvents)
	mux.HandleFunc("POST /responses/{responseId}/cancel", a.cancelResponse)
	mux.HandleFunc("POST /responses/{responseId}/steer", a.steerResponse) // steer.go
	mux.HandleFunc("GET /sessions/{sessionId}/events", a.sessionEvents)   // session_events.go
	mux.HandleFunc("POST /approvals/{approvalId}", a.decide)
	mux.HandleFunc("POST /client-tools/{requestId}", a.submitClientTool)
	a.RegisterAssets(mux)
}

// IsPublic reports the routes that need no credentials.
func IsPublic(r *http.Request) bool {
	switch r.URL.Path {
	case "/healthz", "/readyz", "/.well-known/agent-card.json", "/agent":
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	}
	return false
}

func (a *API) healthz(w http.ResponseWriter, _ *http.Request) {
	writeRaw(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

// readyz is readiness, unlike healthz (liveness, always 200): 200 while the
// store answers and the server is not shutting down, else 503 with the
// reason, so a load balancer sends traffic elsewhere meanwhile.
func (a *API) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if err := a.svc.Ready(r.Context()); err != nil {
		e := runtime.AsError(err)
		// Not fail: a probe's body also says its status ("unavailable").
		writeJSON(w, http.StatusServiceUnavailable, struct {
			Status string `json:"status"`
			Detail string `json:"detail"`
			Code   string `json:"code"`
		}{"unavailable", e.Detail, e.Code})
		return
	}
	writeRaw(w, http.StatusOK, []byte(`{"status":"ready"}`))
}

func (a *API) agent(w http.ResponseWriter, _ *http.Request) {
	writeRaw(w, http.StatusOK, a.agentJSON)
}

func (a *API) agentCard(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeRaw(w, http.StatusOK, a.cardJSON)
}
