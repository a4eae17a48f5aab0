package backend

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// Both backends are agents; the build fails if one stops being one.
var (
	_ runtime.Agent = (*Echo)(nil)
	_ runtime.Agent = (*Exec)(nil)
	_ runtime.Agent = (*Workers)(nil)
)

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
