package a2aremote

import (
	"context"
	"errors"
	"log/slog"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// Agent is a remote A2A agent as a runtime.Agent.
type Agent struct{}

// Options configure the backend.
type Options struct {
	Config config.A2ABackend
	Logger *slog.Logger
}

// New builds the backend.
func New(o Options) (*Agent, error) { return &Agent{}, nil }

// Run runs one turn.
func (a *Agent) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	return errors.New("a2a backend: not implemented yet")
}
