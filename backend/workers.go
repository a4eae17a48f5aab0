package backend

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// This file is the worker pool: starting and closing it, queueing turns for
// a free worker, and restarting broken workers after a backoff. One worker
// process is worker_process.go; one turn on it, worker_turn.go.

const (
	// workerCancelGrace is how long a worker has to answer a cancel with
	// done (and to exit on Close) before it is killed.
	workerCancelGrace = 2 * time.Second
	// workerBackoffMin and workerBackoffMax bound the pause before a
	// worker is restarted after failures: the first restart waits the
	// minimum, each further consecutive failure doubles it.
	workerBackoffMin = 100 * time.Millisecond
	workerBackoffMax = 5 * time.Second
)

// errWorkersClosed is what Run returns once Close was called.
var errWorkersClosed = runtime.Errorf(runtime.ErrUnavailable, "agent_unavailable", "the agent's workers are shut down")

// Workers is the exec backend in worker mode: a pool of long-lived
// processes of the configured program, each speaking the JSON lines
// protocol of docs/worker-protocol.md on its stdin and stdout. A worker
// runs one turn at a time; turns queue for a free worker.
//
// A worker that breaks the protocol, exits, or stays silent longer than
// the timeout fails the turn it was running (only that one) and is killed
// with its process group; it is restarted when next needed, after a pause
// that grows while it keeps failing. Its stderr goes to the log, never to
// clients.
//
// Workers holds processes: call Close when the agent is no longer served.
type Workers struct {
	spec   execSpec
	logger *slog.Logger

	free   chan *workerSlot // slots not running a turn
	closed chan struct{}    // closed by Close

	mu        sync.Mutex
	isClosed  bool
	procs     map[*workerProc]struct{} // every process not yet stopped
	closeOnce sync.Once

	turns atomic.Uint64 // numbers turns that have no response id
}

// workerSlot is one place in the pool. Whoever took it from free owns it
// and its fields.
type workerSlot struct {
	index    int
	proc     *workerProc // nil when no process runs for the slot
	failures int         // consecutive failures: the backoff of the next start
}

// NewWorkers builds the worker pool of an exec config section in mode
// worker and starts its processes. folderDir resolves the program and the
// working directory as for NewExec.
func NewWorkers(cfg config.ExecBackend, folderDir string, logger *slog.Logger) (*Workers, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.Mode != "worker" {
		return nil, fmt.Errorf("exec backend: NewWorkers runs mode worker, not %q", cfg.Mode)
	}
	if cfg.Workers < 0 {
		return nil, fmt.Errorf("exec backend: workers is %d; it must be 1 or more (0 means 1)", cfg.Workers)
	}
	spec, err := newExecSpec(cfg, folderDir)
	if err != nil {
		return nil, err
	}
	n := max(cfg.Workers, 1)
	w := &Workers{
		spec:   spec,
		logger: logger,
		free:   make(chan *workerSlot, n),
		closed: make(chan struct{}),
		procs:  make(map[*workerProc]struct{}),
	}
	for i := range n {
		s := &workerSlot{index: i}
		if s.proc, err = w.start(s); err != nil {
			_ = w.Close()
			return nil, err
		}
		w.free <- s
	}
	return w, nil
}

// Close stops every worker: it closes their stdin (a worker should then
// exit), waits up to two seconds, then kills each process group and waits
// for it. Turns still running fail. Close always returns nil; calling it
// again does nothing.
func (w *Workers) Close() error {
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.isClosed = true
		close(w.closed)
		procs := make([]*workerProc, 0, len(w.procs))
		for p := range w.procs {
			procs = append(procs, p)
		}
		w.mu.Unlock()

		for _, p := range procs {
			_ = p.stdin.Close()
		}
		deadline := time.NewTimer(workerCancelGrace)
		defer deadline.Stop()
		for _, p := range procs {
			select {
			case <-p.exited:
			case <-deadline.C:
			}
		}
		var wg sync.WaitGroup
		for _, p := range procs {
			wg.Go(p.stop)
		}
		wg.Wait()
	})
	return nil
}

// Run runs one turn on a free worker, waiting for one if all are busy.
func (w *Workers) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	id := turn.ResponseID
	if id == "" {
		id = fmt.Sprintf("turn_%d", w.turns.Add(1))
	}
	line, err := w.turnLine(ctx, id, turn)
	if err != nil {
		return err
	}

	var s *workerSlot
	select {
	case s = <-w.free:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.closed:
		return errWorkersClosed
	}

	p, err := w.ready(ctx, s)
	if err != nil {
		w.free <- s
		return err
	}
	after, err := w.runTurn(ctx, p, id, turn, line, emit)
	switch after {
	case workerIdle:
		s.failures = 0
		w.free <- s
	case workerBroken:
		w.retire(s)
		w.free <- s
	case workerCancelling:
		// The turn is over for the caller; the worker keeps its slot
		// until it confirms the cancel (or is killed).
		go func() {
			if w.cancel(p, id) {
				s.failures = 0
			} else {
				w.retire(s)
			}
			w.free <- s
		}()
	}
	return err
}

// workerAfter is the state a turn leaves its worker in.
type workerAfter int

const (
	workerIdle       workerAfter = iota // ready for the next turn
	workerBroken                        // to be killed and restarted
	workerCancelling                    // to be told to cancel, then maybe reused
)

// retire kills the slot's process after a failure; the next turn on the
// slot starts a new one, after a backoff.
func (w *Workers) retire(s *workerSlot) {
	s.proc.stop()
	s.proc = nil
	s.failures++
}

// ready returns the slot's process, starting one if there is none or it
// died while idle. After failures it first waits out the backoff.
func (w *Workers) ready(ctx context.Context, s *workerSlot) (*workerProc, error) {
	if p := s.proc; p != nil {
		select {
		case <-p.exited:
			w.logger.Warn("exec worker: worker exited between turns; restarting it",
				"worker", s.index, "pid", p.pid, "status", exitStatus(p.waitErr))
			w.retire(s)
		default:
			return p, nil
		}
	}
	if s.failures > 0 {
		pause := workerBackoff(s.failures)
		timer := time.NewTimer(pause)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-w.closed:
			return nil, errWorkersClosed
		}
	}
	p, err := w.start(s)
	if err != nil {
		s.failures++
		return nil, err
	}
	s.proc = p
	return p, nil
}

// workerBackoff is the pause before a restart after failures consecutive
// failures (at least one).
func workerBackoff(failures int) time.Duration {
	d := workerBackoffMin
	for i := 1; i < failures && d < workerBackoffMax; i++ {
		d *= 2
	}
	return min(d, workerBackoffMax)
}

// Compile-time checks: Workers is an agent that holds processes.
var (
	_ runtime.Agent = (*Workers)(nil)
	_ io.Closer     = (*Workers)(nil)
)
