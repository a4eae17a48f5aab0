package router

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Relay is what the router needs of the relay: who the owner is, the
// owner's feed for hand-offs to a person, and whether an outside agent is
// connected.
type Relay interface {
	// IsOwner reports whether a user is the agent's owner.
	IsOwner(user string) bool
	// HandOff puts a hand-off item (no text of the turn) into the feed of
	// the owner who answers user's turns.
	HandOff(ctx context.Context, user, responseID, sessionID string) error
	// Connected reports whether an outside agent would take user's turn
	// through the relay section b now (paired, live, not paused).
	Connected(ctx context.Context, b config.RelayBackend, user string) (bool, error)
}

// Options configure a Router.
type Options struct {
	Config config.RouterBackend
	// Harnesses are the built harnesses, one per name of Config.Harnesses.
	Harnesses map[string]runtime.Agent
	// Store keeps counters, breakers, overrides and receipts.
	Store store.Router
	// Relay decides who the owner is and takes hand-offs; nil: everyone
	// is the owner and hand-offs are only logged.
	Relay  Relay
	Logger *slog.Logger
	// Now replaces the clock (tests).
	Now func() time.Time
}

// Router is the router backend: a runtime.Agent over named harnesses.
type Router struct {
	cfg       config.RouterBackend
	harnesses map[string]runtime.Agent
	order     []string // the declared order (config.RouterBackend.DeclaredOrder)
	ladder    []string // with person last; nil without a ladder
	st        store.Router
	relay     Relay
	log       *slog.Logger
	now       func() time.Time
}

var _ runtime.Agent = (*Router)(nil)

// New builds a Router.
func New(o Options) (*Router, error) {
	if o.Store == nil {
		return nil, errors.New("router: a store is required")
	}
	r := &Router{cfg: o.Config, harnesses: o.Harnesses, st: o.Store, relay: o.Relay, log: o.Logger, now: o.Now}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.now == nil {
		r.now = time.Now
	}
	r.order = o.Config.DeclaredOrder()
	for _, name := range r.order {
		if r.harnesses[name] == nil {
			return nil, fmt.Errorf("router: the harness %q was not built", name)
		}
	}
	if _, ok := o.Config.Harnesses[o.Config.House]; !ok {
		return nil, fmt.Errorf("router: the house %q is not a harness", o.Config.House)
	}
	if len(o.Config.Ladder) > 0 {
		r.ladder = slices.DeleteFunc(slices.Clone(o.Config.Ladder), func(s string) bool { return s == config.RouterPerson })
		r.ladder = append(r.ladder, config.RouterPerson)
	}
	return r, nil
}

// Close closes the harnesses that hold processes or connections.
func (r *Router) Close() error {
	var errs []error
	for _, name := range r.order {
		if c, ok := r.harnesses[name].(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// isOwner reports whether the user is the agent's owner.
func (r *Router) isOwner(user string) bool { return r.relay == nil || r.relay.IsOwner(user) }

// breakerPolicy is the breaker of a harness.
func (r *Router) breakerPolicy(name string) store.RouterBreakerPolicy {
	b := r.cfg.Breaker.WithDefaults()
	wait := time.Duration(r.cfg.Harnesses[name].Wait()) * time.Millisecond
	return store.RouterBreakerPolicy{Failures: b.Failures, Window: time.Duration(b.WindowSeconds) * time.Second,
		CoolDown: time.Duration(b.CoolDownSeconds) * time.Second, TrialTimeout: wait + 5*time.Second}
}

// storeCtx bounds the router's own store calls after the turn's context
// may have ended (receipts, reports).
func storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
}
