package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/harnest/harnest/backend/a2aremote"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// Both backends are agents; the build fails if one stops being one.
var (
	_ runtime.Agent = (*Echo)(nil)
	_ runtime.Agent = (*Exec)(nil)
	_ runtime.Agent = (*Workers)(nil)
	_ runtime.Agent = (*Model)(nil)
)

// ForFolder builds the agent of a loaded agent folder: New for the
// backends that need only their section, and the model backend, which also
// needs the folder's instructions, tools and MCP servers (it implements
// io.Closer and runtime.ReadyReporter: Close it when done).
func ForFolder(ctx context.Context, f *config.Folder, logger *slog.Logger) (runtime.Agent, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if f.Config.Spec.Backend.Model != nil {
		if n := countBackends(f.Config.Spec.Backend); n > 1 {
			return nil, fmt.Errorf("backend: %d backends are set under spec.backend; choose exactly one", n)
		}
		model, err := NewModel(ctx, f.Config.Spec, f.Instructions, f.Dir, logger)
		if err != nil {
			return nil, err
		}
		return model, nil
	}
	if a := f.Config.Spec.Backend.A2A; a != nil {
		if n := countBackends(f.Config.Spec.Backend); n > 1 {
			return nil, fmt.Errorf("backend: %d backends are set under spec.backend; choose exactly one", n)
		}
		remote, err := a2aremote.New(a2aremote.Options{Config: *a, Logger: logger})
		if err != nil {
			return nil, err
		}
		return remote, nil
	}
	return New(f.Config.Spec.Backend, f.Dir, logger)
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
