package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/harnest/harnest/internal/contract"
	"github.com/harnest/harnest/store"
)

// Options configure a Service.
type Options struct {
	Store Store
	Agent Agent
	// Approvals answers approvals that are not a response's waits (the
	// relay's tool calls at home) through Decide; nil: none.
	Approvals ApprovalDesk
	// MaxConcurrent runs at once, shared by every transport (default 8).
	MaxConcurrent int
	// MaxQueued bounds the runs waiting for a slot, across all users
	// (default 1000); past it StartResponse refuses with ErrRateLimited.
	MaxQueued int
	// MaxPerUser bounds one user's running and queued runs (default 64);
	// past it that user's StartResponse refuses with ErrRateLimited.
	MaxPerUser int
	// Limits are the per-user limits every replica enforces together
	// (limits.go); the zero value limits nothing.
	Limits UserLimits
	// Timeout is the deadline of one run (default 300 s).
	Timeout time.Duration
	// MaxInputBytes bounds a text input (default 1 MiB).
	MaxInputBytes int
	// Policy is applied to every event before any transport sees it.
	Policy OutputPolicy
	// Lease is how long a response holds its session between renewals
	// (default 30 s); a replica that dies frees the session after it.
	Lease time.Duration
	// ApprovalTTL and ClientToolTTL bound how long a wait lasts (defaults
	// 900 s and 300 s).
	ApprovalTTL   time.Duration
	ClientToolTTL time.Duration
	// SweepInterval is how often this replica looks for runs whose replica
	// died (default a third of Liveness).
	SweepInterval time.Duration
	// Liveness is the TTL of this replica's liveness record, renewed every
	// third of it (default 3 s): the runs of a replica whose record lapsed
	// are claimed by another (claim.go).
	Liveness time.Duration
	// RerunOnReplicaLoss runs a background turn again on the replica that
	// claims it when its replica is lost (onReplicaLoss: rerun); without
	// it the turn fails with replica_lost.
	RerunOnReplicaLoss bool
	// MaxAttempts bounds the attempts of a turn, counting the first run
	// (default 3): past it a claimed turn fails with replica_lost.
	MaxAttempts int
	// OnBusy is the agent's strategy for a message to a busy session
	// (spec.onBusy; default DefaultOnBusy), and MaxQueuedPerSession the
	// bound of a session's queue (default DefaultMaxQueuedPerSession):
	// busy.go.
	OnBusy              string
	MaxQueuedPerSession int
	// FlushDelay is how long events wait before they are written for
	// followers (default 100 ms); see DefaultFlushDelay.
	FlushDelay time.Duration
	Logger     *slog.Logger
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// Observer is told how turns end, for metrics (observe.go); optional.
	Observer Observer
	// Tracer opens a trace span for each turn (trace.go); optional.
	Tracer TurnTracer
	// Contract is the agent's typed contract (contract.go): its input
	// schema is checked before anything is stored, its output schema when
	// the turn ends. Nil: untyped.
	Contract *contract.Contract
	// Backend names the agent's backend in the usage counters (usage.go):
	// "model", "exec", ... ("agent" when empty).
	Backend string
}

// Service is the core every transport drives.
type Service struct {
	store     Store
	agent     Agent
	approvals ApprovalDesk
	admission *admission
	limits    UserLimits
	timeout   time.Duration
	maxIn     int
	policy    OutputPolicy
	lease     time.Duration
	log       *slog.Logger
	now       func() time.Time
	observer  Observer
	tracer    TurnTracer         // nil: turns are not traced
	outbox    Outbox             // where webhooks go (webhook.go); nil: none
	doors     doorHandlers       // the doors' receivers of door messages (door_control.go)
	contract  *contract.Contract // the agent's typed input and output (contract.go); nil: untyped
	backend   string             // the backend's name in the usage counters (usage.go)

	approvalTTL, clientToolTTL, sweepEvery, flushDelay time.Duration
	hub                                                store.Hub
	stopSweeper                                        context.CancelFunc
	stopHeartbeat                                      context.CancelFunc // under mu; nil before Start
	handOffOnce                                        sync.Once
	sweeperDone                                        chan struct{}
	heartbeatDone                                      chan struct{}

	// liveness is the TTL of this replica's liveness record; beatSince
	// (under mu) when its current row of successful heartbeats began
	// (claim.go). rerun and maxAttempts say what a claimed turn becomes.
	liveness    time.Duration
	beatSince   time.Time
	rerun       bool
	maxAttempts int

	// replica names this replica among those sharing the store: runs and
	// waits record it, and answers reach it on its own control channel.
	replica string
	// halt is closed when Shutdown's grace is over: responses still trying
	// to record their final step give up.
	halt     chan struct{}
	haltOnce sync.Once
	// tokens seals the cursors and page tokens this replica issues, with
	// the key every replica shares (seal.go).
	tokens *TokenSealer
	// runners are the goroutines responses run on (runners.go).
	runners *runners
	// lapsedSeen is when the sweeper first saw each lapsed run of another
	// replica (see sweep.go).
	lapsedSeen map[string]time.Time
	// parkedSweptAt is when the sweeper last looked at the parked runs
	// (waits_durable.go).
	parkedSweptAt time.Time
	// queuedSweptAt is when the sweeper last looked at the queued runs
	// (queue.go); busy is the state of busy sessions (busy.go).
	queuedSweptAt time.Time
	busy          busyState
	// onSwept are told of the responses this replica's sweeper failed
	// (OnSwept).
	onSwept []func(user, session, responseID string)

	// renewal renews the session leases of the running responses
	// (renewer.go).
	renewal renewer

	mu       sync.Mutex
	byID     map[string]*Response // the running responses
	closing  bool
	draining bool // readiness says no, turns are still taken (Drain)
	finished sync.WaitGroup
}

// New builds a Service.
func New(o Options) *Service {
	s := &Service{
		store: o.Store, agent: o.Agent, approvals: o.Approvals, admission: newAdmission(o.MaxConcurrent, o.MaxQueued, o.MaxPerUser),
		timeout: o.Timeout, maxIn: o.MaxInputBytes, policy: o.Policy,
		lease: o.Lease, log: o.Logger, now: o.Now,
		approvalTTL: o.ApprovalTTL, clientToolTTL: o.ClientToolTTL, sweepEvery: o.SweepInterval, flushDelay: o.FlushDelay,
		byID:    map[string]*Response{},
		replica: "replica_" + newHex(), halt: make(chan struct{}), lapsedSeen: map[string]time.Time{},
		runners: newRunners(maxIdleRunners), observer: o.Observer, tracer: o.Tracer, limits: o.Limits,
		liveness: o.Liveness, rerun: o.RerunOnReplicaLoss, maxAttempts: o.MaxAttempts,
		busy: newBusyState(o.OnBusy, o.MaxQueuedPerSession), contract: o.Contract, backend: o.Backend,
	}
	s.liveness = orPositive(s.liveness, DefaultLiveness)
	s.maxAttempts = orPositive(s.maxAttempts, DefaultMaxAttempts)
	if s.observer == nil {
		s.observer = noObserver{}
	}
	if st := o.Store; st != nil {
		s.tokens = NewTokenSealer(func(ctx context.Context) ([]byte, error) { return st.SharedSecret(ctx, TokenSecret) })
	}
	s.approvalTTL = orPositive(s.approvalTTL, DefaultApprovalTTL)
	s.clientToolTTL = orPositive(s.clientToolTTL, DefaultClientToolTTL)
	s.flushDelay = orPositive(s.flushDelay, DefaultFlushDelay)
	s.sweepEvery = orPositive(s.sweepEvery, s.liveness/3)
	s.timeout = orPositive(s.timeout, 300*time.Second)
	s.maxIn = orPositive(s.maxIn, 1<<20)
	s.lease = orPositive(s.lease, 30*time.Second)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// MaxInputBytes is the text input limit.
func (s *Service) MaxInputBytes() int { return s.maxIn }

// Start connects the service to the other replicas: it subscribes to the
// control channel (answers and cancels for responses held here) and starts
// the sweeper that fails the runs of replicas that died. Stop it with
// Shutdown.
func (s *Service) Start(ctx context.Context) error {
	hub, err := s.store.StartHub(ctx, s.replica, s.onControl)
	if err != nil {
		return fmt.Errorf("runtime: subscribe to the control channel: %w", err)
	}
	s.hub = hub
	sweepCtx, stop := context.WithCancel(context.Background())
	beatCtx, stopBeat := context.WithCancel(context.Background()) // stopped alone by a hand-off (handoff.go)
	s.mu.Lock()
	s.stopSweeper, s.sweeperDone, s.heartbeatDone = func() { stop(); stopBeat() }, make(chan struct{}), make(chan struct{})
	s.stopHeartbeat = stopBeat
	s.mu.Unlock()
	go s.heartbeat(beatCtx)
	go s.sweep(sweepCtx)
	return nil
}

// Drain makes the replica not ready (GET /readyz answers 503 with
// CodeShutdown) while it still takes turns: the first step of a shutdown,
// so that a load balancer stops sending traffic before the listener
// closes.
func (s *Service) Drain() {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
}

// Shutdown stops admitting responses, hands the resumable ones off to the
// other live replicas (handoff.go), waits for the others until ctx ends,
// then cancels them and waits until their receipts are recorded.
func (s *Service) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.handOffOnce.Do(func() { s.handOff(ctx) }) // a second call waits for it
	done := make(chan struct{})
	go func() { s.finished.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		s.mu.Lock()
		for _, r := range s.byID {
			r.cancel(errShutdown)
		}
		s.mu.Unlock()
		go func() {
			// Responses record their receipts now; one that cannot reach the
			// store gets a little longer, then gives up.
			select {
			case <-done:
			case <-time.After(recordTimeout):
				s.haltOnce.Do(func() { close(s.halt) })
			}
		}()
		<-done
		err = ctx.Err()
	}
	s.stop()
	return err
}

// stop ends the sweeper and the hub (once).
func (s *Service) stop() {
	s.mu.Lock()
	stopSweeper, hub := s.stopSweeper, s.hub
	s.stopSweeper, s.hub = nil, nil
	s.mu.Unlock()
	if stopSweeper != nil {
		stopSweeper()
		<-s.sweeperDone
		<-s.heartbeatDone
	}
	if hub != nil {
		_ = hub.Close()
	}
	s.runners.stop()
	s.renewal.stop()
}

var errShutdown = errors.New("server shutting down")

// track registers a running response; false when the service is closing.
func (s *Service) track(r *Response) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.byID[r.ID] = r
	s.finished.Add(1)
	return true
}

func (s *Service) untrack(r *Response) {
	s.mu.Lock()
	delete(s.byID, r.ID)
	s.mu.Unlock()
	s.finished.Done()
}

func (s *Service) timestamp() string { return timestamp(s.now()) }

// orPositive is v, or d when v is zero or negative: an option left unset.
func orPositive[T ~int | ~int64](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}
