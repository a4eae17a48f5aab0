package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/harnest/harnest/backend/a2aremote"
	"github.com/harnest/harnest/backend/router"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/memory"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Both backends are agents; the build fails if one stops being one.
var (
	_ runtime.Agent = (*Echo)(nil)
	_ runtime.Agent = (*Exec)(nil)
	_ runtime.Agent = (*Workers)(nil)
	_ runtime.Agent = (*Model)(nil)
)

// Parts are what the router backend needs from the composition root; the
// other backends ignore them.
type Parts struct {
	// Store keeps the router's counters, breakers, overrides and receipts.
	Store store.Router
	// Relay builds the relay backend (spec.backend.relay) and relay
	// harnesses, says who the owner is and takes hand-offs to a person.
	Relay RelayParts
	// Memory is the agent's long-term memory: the model backend offers
	// its tools when spec.memory.tools is on (nil: never).
	Memory *memory.Service
}

// RelayParts is the relay as the backends use it.
type RelayParts interface {
	router.Relay
	// AgentWith is the relay backend with a section of its own.
	AgentWith(b config.RelayBackend) runtime.Agent
}

// ForFolder builds the agent of a loaded agent folder: New for the
// backends that need only their section, the relay backend from parts
// (the relay's participants answer), and the model backend, which also
// needs the folder's instructions, tools and MCP servers (it implements
// io.Closer and runtime.ReadyReporter: Close it when done). The router
// (spec.backend.router) builds each harness from its own section the same
// way, with parts. Exactly one backend must be set under spec.backend.
func ForFolder(ctx context.Context, f *config.Folder, logger *slog.Logger, parts Parts) (runtime.Agent, error) {
	if logger == nil {
		logger = slog.Default()
	}
	b := f.Config.Spec.Backend
	if n := countBackends(b); n > 1 {
		return nil, fmt.Errorf("backend: %d backends are set under spec.backend; choose exactly one", n)
	}
	switch {
	case b.Router != nil:
		return newRouter(ctx, f, *b.Router, logger, parts)
	case b.Relay != nil:
		if parts.Relay == nil {
			return nil, errors.New("backend: the relay backend needs the relay; pass it in Parts")
		}
		return parts.Relay.AgentWith(*b.Relay), nil
	case b.Model != nil:
		return newModel(ctx, f, f.Config.Spec, logger, parts)
	case b.A2A != nil:
		return newRemote(*b.A2A, logger)
	}
	return New(b, f.Dir, logger)
}

// newModel builds the model backend of spec, with its memory.
func newModel(ctx context.Context, f *config.Folder, spec config.Spec, logger *slog.Logger, parts Parts) (runtime.Agent, error) {
	model, err := NewModel(ctx, spec, f.Instructions, f.Dir, logger)
	if err != nil {
		return nil, err // a plain nil, not a nil *Model inside the interface
	}
	model.UseMemory(spec.Memory, parts.Memory)
	return model, nil
}

// newRemote builds the a2a backend of cfg.
func newRemote(cfg config.A2ABackend, logger *slog.Logger) (runtime.Agent, error) {
	remote, err := a2aremote.New(a2aremote.Options{Config: cfg, Logger: logger})
	if err != nil {
		return nil, err // a plain nil, not a nil *Agent inside the interface
	}
	return remote, nil
}

// newRouter builds the router over its harnesses, each through the
// builder of its kind.
func newRouter(ctx context.Context, f *config.Folder, cfg config.RouterBackend, logger *slog.Logger, parts Parts) (runtime.Agent, error) {
	if parts.Store == nil {
		return nil, errors.New("backend: the router needs the store; pass it in Parts")
	}
	built := map[string]runtime.Agent{}
	closeBuilt := func() {
		for _, a := range built {
			if c, ok := a.(io.Closer); ok {
				_ = c.Close()
			}
		}
	}
	for name, h := range cfg.Harnesses {
		agent, err := buildHarness(ctx, f, cfg, h, logger, parts)
		if err != nil {
			closeBuilt()
			return nil, fmt.Errorf("backend: router harness %q: %w", name, err)
		}
		built[name] = agent
	}
	var rl router.Relay
	if parts.Relay != nil {
		rl = parts.Relay
	}
	r, err := router.New(router.Options{Config: cfg, Harnesses: built, Store: parts.Store, Relay: rl, Logger: logger})
	if err != nil {
		closeBuilt()
		return nil, err
	}
	return r, nil
}

// buildHarness builds one router harness from its backend section.
func buildHarness(ctx context.Context, f *config.Folder, cfg config.RouterBackend, h config.RouterHarness, logger *slog.Logger, parts Parts) (runtime.Agent, error) {
	switch {
	case h.Relay != nil:
		if parts.Relay == nil {
			return nil, errors.New("a relay harness needs the relay; pass it in Parts")
		}
		return parts.Relay.AgentWith(routerRelaySection(cfg, *h.Relay)), nil
	case h.Model != nil:
		spec := f.Config.Spec
		spec.Backend = config.Backend{Model: h.Model}
		return newModel(ctx, f, spec, logger, parts)
	case h.A2A != nil:
		return newRemote(*h.A2A, logger)
	}
	return New(h.Backend(), f.Dir, logger)
}

// routerRelaySection is a router's relay harness section with the
// router's visitors setting in force: visitors' turns reach the outside
// agent while the router's visitors are on, within the router's daily cap
// (the section's own allowVisitors and visitorDailyCap do not apply).
// The router counts each visitor's turn before asking; the relay's own
// count of the same turns, under the same cap, stays as a second guard
// (the house, asked without the router's checks, meets it too).
func routerRelaySection(cfg config.RouterBackend, b config.RelayBackend) config.RelayBackend {
	b.AllowVisitors = cfg.VisitorsOn()
	b.VisitorDailyCap = 0
	if b.AllowVisitors {
		b.VisitorDailyCap = cfg.Visitors.DailyTurns
	}
	return b
}

func countBackends(b config.Backend) int {
	n := 0
	for _, set := range []bool{b.Echo != nil, b.Exec != nil, b.Relay != nil, b.Model != nil, b.A2A != nil, b.Router != nil} {
		if set {
			n++
		}
	}
	return n
}

// New builds the agent that the backend section b describes. folderDir is
// the agent folder: the exec backend resolves its program and working
// directory against it. logger receives what the agent has to report
// outside the event stream (an exec program's stderr, for instance); nil
// means slog.Default().
//
// Exactly one backend must be set in b.
//
// An exec backend in mode worker starts its worker processes here, and the
// agent returned then implements io.Closer: the caller must Close it when
// it stops serving, or the processes outlive the server.
func New(b config.Backend, folderDir string, logger *slog.Logger) (runtime.Agent, error) {
	if logger == nil {
		logger = slog.Default()
	}
	switch {
	case b.Model != nil:
		return nil, errors.New("backend: a model backend needs its folder's instructions and tools; build it with ForFolder")
	case b.Echo != nil && b.Exec != nil:
		return nil, errors.New("backend: both spec.backend.echo and spec.backend.exec are set; choose exactly one")
	case b.Echo != nil:
		return NewEcho(*b.Echo), nil
	case b.Exec != nil && b.Exec.Mode == "worker":
		workers, err := NewWorkers(*b.Exec, folderDir, logger)
		if err != nil {
			return nil, err
		}
		return workers, nil
	case b.Exec != nil:
		if b.Exec.Mode != "" && b.Exec.Mode != "turn" {
			return nil, fmt.Errorf("backend: spec.backend.exec.mode is %q; it must be turn or worker", b.Exec.Mode)
		}
		agent, err := NewExec(*b.Exec, folderDir, logger)
		if err != nil {
			// Return a plain nil, not a nil *Exec inside the interface.
			return nil, err
		}
		return agent, nil
	default:
		return nil, errors.New("backend: no backend configured; set spec.backend.echo or spec.backend.exec")
	}
}
