package runtime

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

// Options configure a Service.
type Options struct {
	Store *store.Store
	Agent Agent
	// MaxConcurrent runs at once, shared by every transport (default 8).
	MaxConcurrent int
	// Timeout is the deadline of one run (default 300 s).
	Timeout time.Duration
	// MaxInputBytes bounds a text input (default 1 MiB).
	MaxInputBytes int
	// Policy is applied to every event before any transport sees it.
	Policy OutputPolicy
	// Lease is how long a response holds its session between renewals
	// (default 30 s); a replica that dies frees the session after it.
	Lease  time.Duration
	Logger *slog.Logger
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// Service is the core every transport drives.
type Service struct {
	store   *store.Store
	agent   Agent
	gate    gate
	timeout time.Duration
	maxIn   int
	policy  OutputPolicy
	lease   time.Duration
	log     *slog.Logger
	now     func() time.Time

	mu       sync.Mutex
	runs     map[*Response]struct{}
	closing  bool
	finished sync.WaitGroup
}

// New builds a Service.
func New(o Options) *Service {
	s := &Service{
		store: o.Store, agent: o.Agent, gate: newGate(o.MaxConcurrent),
		timeout: o.Timeout, maxIn: o.MaxInputBytes, policy: o.Policy,
		lease: o.Lease, log: o.Logger, now: o.Now,
		runs: map[*Response]struct{}{},
	}
	if s.gate == nil || o.MaxConcurrent == 0 {
		s.gate = newGate(8)
	}
	if s.timeout <= 0 {
		s.timeout = 300 * time.Second
	}
	if s.maxIn <= 0 {
		s.maxIn = 1 << 20
	}
	if s.lease <= 0 {
		s.lease = 30 * time.Second
	}
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

// Shutdown stops admitting responses, waits for the running ones until ctx
// ends, then cancels them and waits until their receipts are recorded.
func (s *Service) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.finished.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	for r := range s.runs {
		r.cancel(errShutdown)
	}
	s.mu.Unlock()
	<-done
	return ctx.Err()
}

var errShutdown = errors.New("server shutting down")

// track registers a running response; false when the service is closing.
func (s *Service) track(r *Response) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.runs[r] = struct{}{}
	s.finished.Add(1)
	return true
}

func (s *Service) untrack(r *Response) {
	s.mu.Lock()
	delete(s.runs, r)
	s.mu.Unlock()
	s.finished.Done()
}

func (s *Service) timestamp() string { return timestamp(s.now()) }
