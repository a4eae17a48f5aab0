package trigger

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/harnest/harnest/internal/defaults"
	"github.com/harnest/harnest/internal/jsontemplate"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Signing schemes (Definition.Scheme).
const (
	SchemeStandardWebhooks = "standardWebhooks"
	SchemeGitHub           = "github"
)

// Definition is one named trigger, as config.yaml's server.triggers
// describes it.
type Definition struct {
	Name   string
	Scheme string // SchemeStandardWebhooks (default) or SchemeGitHub
	// Secret is the signing secret: "whsec_<base64>" for Standard
	// Webhooks, the shared text for GitHub.
	Secret string
	// User is who the turns run as and whose waits may be answered ("":
	// the anonymous user).
	User string
	// Tolerance is how far webhook-timestamp may be from now (default 5 min).
	Tolerance time.Duration
	// Remember is how long a delivery ID is remembered (default 24 h, at
	// least twice Tolerance).
	Remember time.Duration
	// Input and Session are templates over JSON pointers into the payload.
	Input   string
	Session string
	OnBusy  string
	// AnswerWaitID, AnswerApproved and AnswerOutput are JSON pointers to
	// a wait's ID and its answer; AnswerWaitID "" answers no waits.
	AnswerWaitID, AnswerApproved, AnswerOutput string
}

// Options configure the triggers of a replica.
type Options struct {
	Triggers []Definition
	Store    store.TriggerDeliveries
	Service  *runtime.Service
	// MaxBodyBytes bounds a delivery's body (default 1 MiB).
	MaxBodyBytes int
	Log          *slog.Logger
	Now          func() time.Time
}

// Triggers serves POST /triggers/{name}.
type Triggers struct {
	o      Options
	byName map[string]*trigger
}

// trigger is a Definition made ready: its key, templates and pointers.
type trigger struct {
	Definition
	key                      []byte // Standard Webhooks' HMAC key, or GitHub's secret
	input, session           jsontemplate.Template
	waitID, approved, output *jsontemplate.Pointer
}

// New checks the definitions and makes the triggers.
func New(o Options) (*Triggers, error) {
	o.MaxBodyBytes = defaults.Positive(o.MaxBodyBytes, 1<<20)
	o.Log = defaults.Logger(o.Log)
	o.Now = defaults.Clock(o.Now)
	ts := &Triggers{o: o, byName: map[string]*trigger{}}
	for _, d := range o.Triggers {
		t, err := prepare(d)
		if err != nil {
			return nil, fmt.Errorf("trigger %q: %w", d.Name, err)
		}
		ts.byName[d.Name] = t
	}
	return ts, nil
}

func prepare(d Definition) (*trigger, error) {
	if d.Scheme == "" {
		d.Scheme = SchemeStandardWebhooks
	}
	d.Tolerance = defaults.Positive(d.Tolerance, 5*time.Minute)
	if d.Remember < 2*d.Tolerance {
		d.Remember = max(24*time.Hour, 2*d.Tolerance)
	}
	t := &trigger{Definition: d}
	switch d.Scheme {
	case SchemeStandardWebhooks:
		key, err := standardWebhooksKey(d.Secret)
		if err != nil {
			return nil, fmt.Errorf("the secret is not whsec_ followed by base64")
		}
		t.key = key
	case SchemeGitHub:
		if d.Secret == "" {
			return nil, fmt.Errorf("the secret is empty")
		}
		t.key = []byte(d.Secret)
	default:
		return nil, fmt.Errorf("scheme must be %s or %s", SchemeStandardWebhooks, SchemeGitHub)
	}
	var err error
	if t.input, err = jsontemplate.Parse(d.Input); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	if t.session, err = jsontemplate.Parse(d.Session); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	for _, p := range []struct {
		text string
		into **jsontemplate.Pointer
	}{{d.AnswerWaitID, &t.waitID}, {d.AnswerApproved, &t.approved}, {d.AnswerOutput, &t.output}} {
		if p.text == "" {
			continue
		}
		ptr, err := jsontemplate.ParsePointer(p.text)
		if err != nil {
			return nil, err
		}
		*p.into = &ptr
	}
	if t.input.IsZero() && t.waitID == nil {
		return nil, fmt.Errorf("set an input or an answer's waitId")
	}
	return t, nil
}

// Register mounts POST /triggers/{name} on mux.
func (ts *Triggers) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /triggers/{name}", ts.handle)
}

// Endpoints are the /agent entries of the routes.
func Endpoints() map[string]string {
	return map[string]string{"triggers": "/triggers/{name}"}
}

// IsPublic reports whether r is a delivery to a trigger: its signature is
// its authentication, so it passes without a bearer token.
func IsPublic(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/triggers/")
}
