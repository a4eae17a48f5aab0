package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/memory"
	"github.com/harnest/harnest/internal/metrics"
	"github.com/harnest/harnest/internal/netguard"
	"github.com/harnest/harnest/internal/tracing"
	"github.com/harnest/harnest/outbox"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/relay/recipes"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// The parts New assembles a replica from, each built from the folder's
// config and the parts before it.

// openRelay builds the relay (outside agents), which is always served: its
// owner endpoints pair participants, and it is the backend when
// spec.backend.relay is set (backend.ForFolder builds that agent from it).
// It asks the replica's one authenticator who the owner is. Its tools at
// home start with it.
func openRelay(ctx context.Context, f *config.Folder, o Options, st store.Store, authn *auth.Authenticator, log *slog.Logger) (*relay.Relay, error) {
	cfg := f.Config
	owners, firstOwner := ownersOf(cfg)
	rs, err := recipes.Load(f.Dir) // the built-in recipes and the folder's recipes/*.json
	if err != nil {
		return nil, err
	}
	rlo := relay.Options{Store: st, Recipes: rs,
		Auth: authn, Owners: owners, FirstOwner: firstOwner, Logger: log}
	if o.Relay != nil {
		o.Relay(&rlo)
	}
	rl, err := relay.New(rlo)
	if err != nil {
		return nil, err
	}
	if err := rl.OpenToolsAtHome(ctx, cfg.Spec, f.Dir, log); err != nil { // spec.relay.toolsAtHome
		return nil, err
	}
	return rl, nil
}

// ownersOf lists the users of the owners' tokens, and the first of them,
// whose outside agents take visitors' turns.
func ownersOf(cfg config.Config) (owners map[string]bool, first string) {
	owners = map[string]bool{}
	for _, t := range cfg.Auth.Tokens {
		if t.Owner {
			owners[t.User] = true
			if first == "" {
				first = t.User
			}
		}
	}
	return owners, first
}

// pickAgent is the agent turns run on: the one Options gives (tests), or
// the backend the folder configures (the relay's outside agents when
// spec.backend.relay is set).
func pickAgent(ctx context.Context, f *config.Folder, o Options, st store.Store, rl *relay.Relay, mem *memory.Service, log *slog.Logger) (runtime.Agent, error) {
	if o.Agent != nil {
		return o.Agent, nil
	}
	return backend.ForFolder(ctx, f, log, backend.Parts{Store: st, Relay: rl, Memory: mem})
}

// runtimeOptions are the runtime's options from the config: limits,
// leases, the output policy, and the replica's parts.
func runtimeOptions(cfg config.Config, st store.Store, agent runtime.Agent, rl *relay.Relay, log *slog.Logger,
	met *metrics.Metrics, tr *tracing.Tracing) runtime.Options {
	return runtime.Options{
		Store: st, Agent: agent, Approvals: rl.ApprovalDesk(), Logger: log, Observer: met.Observer(), Tracer: tr.TurnTracer(),
		MaxConcurrent:      cfg.Server.HTTP.MaxConcurrentRequests,
		MaxQueued:          cfg.Server.HTTP.MaxQueuedRequests,
		MaxPerUser:         cfg.Server.Limits.MaxTurnsPerUser,
		Limits:             userLimits(cfg.Server.Limits),
		Backend:            cfg.Spec.Backend.Kind(),
		Timeout:            cfg.Server.HTTP.RequestTimeout(),
		MaxInputBytes:      int(cfg.Server.Limits.MaxRequestBytes),
		Lease:              time.Duration(cfg.Store.LeaseSeconds) * time.Second,
		Liveness:           time.Duration(cfg.Store.LivenessSeconds) * time.Second,
		MaxAttempts:        cfg.Store.MaxAttempts,
		RerunOnReplicaLoss: cfg.Spec.OnReplicaLoss == "rerun",
		OnBusy:             cfg.Spec.OnBusy,
		Policy: runtime.OutputPolicy{
			ShowThinking:     cfg.Spec.Output.Thinking,
			HideToolActivity: !config.Enabled(cfg.Spec.Output.ToolActivity),
			AgentMetadata:    cfg.Spec.Output.AgentMetadata,
		},
	}
}

// newOutbox is the dispatcher of push notifications and webhooks, not yet
// started.
func newOutbox(cfg config.Config, st store.Store, log *slog.Logger, o Options) *outbox.Dispatcher {
	do := outbox.DispatcherOptions{Store: st, Logger: log,
		Policy: netguard.Policy{AllowHosts: cfg.Server.Outbound.AllowHosts, AllowHTTPLoopback: true}}
	if o.Outbox != nil {
		o.Outbox(&do)
	}
	return outbox.NewDispatcher(do)
}
