package backend

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

const (
	// workerMaxLine is the longest line a worker may write.
	workerMaxLine = 16 << 20
	// workerCancelGrace is how long a worker has to answer a cancel with
	// done (and to exit on Close) before it is killed.
	workerCancelGrace = 2 * time.Second
	// workerBackoffMin and workerBackoffMax bound the pause before a
	// worker is restarted after failures: the first restart waits the
	// minimum, each further consecutive failure doubles it.
	workerBackoffMin = 100 * time.Millisecond
	workerBackoffMax = 5 * time.Second
	// workerHistoryLimit is how many transcript messages a turn carries.
	workerHistoryLimit = 20
	// A worker's stderr goes to the log line by line, each line cut to
	// workerStderrLineMax bytes, at most workerStderrBurst lines per
	// workerStderrWindow; the rest is counted, not logged.
	workerStderrLineMax = 1 << 10
	workerStderrBurst   = 50
	workerStderrWindow  = 10 * time.Second
	// workerLogLineMax is how much of an invalid line or of a worker's
	// error message goes to the log.
	workerLogLineMax = 1 << 10
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

// turnLine is the line that starts a turn.
func (w *Workers) turnLine(ctx context.Context, id string, turn *runtime.Turn) ([]byte, error) {
	content := turn.Content
	if content == nil {
		content = []runtime.ContentInput{}
		if turn.Input != "" {
			content = append(content, runtime.ContentInput{Type: "text", Text: turn.Input})
		}
	}
	state := turn.State
	if state == nil {
		state = map[string]json.RawMessage{}
	}
	metadata := turn.Metadata
	if len(bytes.TrimSpace(metadata)) == 0 {
		metadata = emptyObject
	}
	history := []runtime.Message{}
	if turn.History != nil {
		h, err := turn.History(ctx, workerHistoryLimit)
		if err != nil {
			return nil, fmt.Errorf("exec worker: read the session history: %w", err)
		}
		if h != nil {
			history = h
		}
	}
	line, err := encodeLine(turnLine{
		Type: "turn", ID: id, SessionID: turn.SessionID, UserID: turn.UserID,
		Input: turn.Input, Content: content, State: state, Metadata: metadata, History: history,
	})
	if err != nil {
		return nil, fmt.Errorf("exec worker: encode the turn: %w", err)
	}
	return line, nil
}

// workerAnswer is the outcome of a request a worker made: the line that
// answers it, or a failure of the turn.
type workerAnswer struct {
	requestID string
	line      []byte
	refusal   error // a denied or expired approval: Run returns it at the end
	fatal     error // the turn cannot go on
}

// agentFailure is the error of a turn that a worker broke.
func agentFailure(format string, args ...any) *runtime.Error {
	return runtime.Errorf(runtime.ErrAgentFailed, "agent_failed", "exec worker: "+format, args...)
}

// runTurn runs one turn on p and says what is to become of the worker.
// It never blocks on the worker once ctx is done.
func (w *Workers) runTurn(ctx context.Context, p *workerProc, id string, turn *runtime.Turn,
	line []byte, emit runtime.Emit) (workerAfter, error) {
	p.turn.Store(&id)
	defer p.turn.Store(nil)

	// The worker's requests run in goroutines under reqCtx, so that the
	// loop keeps reading while a human decides. They end before we return.
	reqCtx, cancelReqs := context.WithCancel(ctx)
	var reqs sync.WaitGroup
	defer func() {
		cancelReqs()
		reqs.Wait()
	}()
	answers := make(chan workerAnswer)

	p.send(line)

	// The idle timer fires when the worker has written nothing for the
	// timeout while it owes us output (not while it waits for an answer).
	timeout := w.spec.timeout
	var idle *time.Timer
	var idleC <-chan time.Time
	if timeout > 0 {
		idle = time.NewTimer(timeout)
		defer idle.Stop()
		idleC = idle.C
	}
	pending := map[string]bool{} // request ids without an answer yet
	var refusal error            // a denial or expiry
	exited := p.exited           // nil once we saw the process exit
	var drain <-chan time.Time   // after the exit: how long to read on

	// idleOrBroken is the state of a worker that finished the turn: it
	// is broken if it exited meanwhile.
	idleOrBroken := func() workerAfter {
		if exited == nil {
			return workerBroken
		}
		return workerIdle
	}
	// abandon ends the turn early with reason; the worker is told to
	// cancel (by Run, in the background) unless it is gone.
	abandon := func(reason error) (workerAfter, error) {
		if exited == nil {
			return workerBroken, reason
		}
		return workerCancelling, reason
	}

	for {
		select {
		case r, ok := <-p.lines:
			if !ok {
				return workerBroken, w.lost(p)
			}
			if r.err != nil {
				w.logger.Warn("exec worker: worker sent an invalid line", "pid", p.pid, "responseId", id, "error", r.err)
				return workerBroken, agentFailure("worker sent an invalid line: %v", r.err)
			}
			if idle != nil && len(pending) == 0 {
				idle.Reset(timeout)
			}
			if len(bytes.TrimSpace(r.line)) == 0 {
				continue
			}
			m, err := decodeWorkerLine(r.line)
			if err != nil {
				w.logger.Warn("exec worker: worker sent an invalid line", "pid", p.pid, "responseId", id,
					"error", err, "line", cut(string(r.line), workerLogLineMax))
				return workerBroken, agentFailure("worker sent an invalid line: %v", err)
			}
			if m.ID != id {
				w.logger.Warn("exec worker: worker sent a line for another turn", "pid", p.pid, "responseId", id,
					"line", cut(string(r.line), workerLogLineMax))
				return workerBroken, agentFailure("worker sent a %s line for another turn", m.Type)
			}

			switch m.Type {
			case wDone:
				return idleOrBroken(), refusal
			case wError:
				w.logger.Warn("exec worker: worker reported an error", "pid", p.pid, "responseId", id,
					"message", cut(m.Message, workerLogLineMax))
				if refusal != nil {
					return idleOrBroken(), refusal
				}
				return idleOrBroken(), agentFailure("the worker reported an error (see the server log)")
			case wResult:
				// Reserved: the runtime has no structured results yet.
				w.logger.Debug("exec worker: ignoring a result line", "pid", p.pid, "responseId", id)
			case wApprovalRequest, wClientToolRequest:
				if pending[m.RequestID] {
					return workerBroken, agentFailure("worker sent request id %s twice", quoteShort(m.RequestID))
				}
				if m.Type == wApprovalRequest && turn.RequestApproval == nil {
					return abandon(agentFailure("the worker asked for an approval but the runtime offers none for this turn"))
				}
				if m.Type == wClientToolRequest && turn.RequestClientTool == nil {
					return abandon(agentFailure("the worker asked for a client tool but the runtime offers none for this turn"))
				}
				pending[m.RequestID] = true
				if idle != nil {
					idle.Stop()
				}
				reqs.Add(1)
				go func() {
					defer reqs.Done()
					a := ask(reqCtx, id, turn, m)
					select {
					case answers <- a:
					case <-reqCtx.Done():
					}
				}()
			default:
				if refusal != nil {
					// A refused turn has no more output.
					continue
				}
				event, _ := m.event()
				if err := emit(event); err != nil {
					return abandon(err)
				}
			}

		case a := <-answers:
			delete(pending, a.requestID)
			if a.fatal != nil {
				return abandon(a.fatal)
			}
			if a.refusal != nil && refusal == nil {
				refusal = a.refusal
			}
			p.send(a.line)
			if idle != nil && len(pending) == 0 {
				idle.Reset(timeout)
			}

		case <-exited:
			// Read what the worker wrote before it exited (its done,
			// perhaps), for a moment; its leftover children go now.
			exited = nil
			p.killGroup()
			timer := time.NewTimer(workerCancelGrace)
			defer timer.Stop()
			drain = timer.C

		case <-drain:
			return workerBroken, w.lost(p)

		case <-idleC:
			w.logger.Warn("exec worker: worker sent nothing within the timeout; killing it",
				"pid", p.pid, "responseId", id, "timeout", timeout.String())
			return workerBroken, runtime.Errorf(runtime.ErrTimeout, "timeout",
				"exec worker: the worker sent nothing for %s", timeout)

		case <-ctx.Done():
			return abandon(ctx.Err())
		}
	}
}

// lost is the error of a turn whose worker exited or closed its stdout.
func (w *Workers) lost(p *workerProc) error {
	// The output usually ends just before the process is reaped.
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	select {
	case <-p.exited:
		status := exitStatus(p.waitErr)
		w.logger.Warn("exec worker: worker exited mid-turn", "pid", p.pid, "status", status)
		return agentFailure("the worker exited mid-turn (%s)", status)
	case <-timer.C:
		w.logger.Warn("exec worker: worker closed its output mid-turn", "pid", p.pid)
		return agentFailure("the worker closed its output mid-turn")
	}
}

// exitStatus describes how a process ended, from Wait's error.
func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ProcessState.String()
	}
	return err.Error()
}

// cancel tells the worker to stop turn id and reads on until it says done,
// dropping anything else it sends for the turn. It reports whether the
// worker stopped within the grace period and can run the next turn.
func (w *Workers) cancel(p *workerProc, id string) bool {
	line, err := encodeLine(cancelLine{Type: "cancel", ID: id})
	if err != nil {
		return false
	}
	p.send(line)
	timer := time.NewTimer(workerCancelGrace)
	defer timer.Stop()
	for {
		select {
		case r, ok := <-p.lines:
			if !ok || r.err != nil {
				return false
			}
			if len(bytes.TrimSpace(r.line)) == 0 {
				continue
			}
			m, err := decodeWorkerLine(r.line)
			if err != nil || m.ID != id {
				return false
			}
			if m.Type == wDone || m.Type == wError {
				return true
			}
		case <-timer.C:
			w.logger.Warn("exec worker: worker did not finish a cancelled turn in time; killing it",
				"pid", p.pid, "responseId", id, "grace", workerCancelGrace.String())
			return false
		}
	}
}

// ask runs one request of a worker through the runtime and makes the line
// that answers it.
func ask(ctx context.Context, id string, turn *runtime.Turn, m workerMessage) workerAnswer {
	a := workerAnswer{requestID: m.RequestID}
	var reply any
	switch m.Type {
	case wApprovalRequest:
		message := m.Message
		if message == "" {
			message = fmt.Sprintf("Approve %s?", m.Action)
		}
		err := turn.RequestApproval(ctx, runtime.ApprovalRequest{
			Action: m.Action, Message: message, Arguments: m.Arguments,
		})
		decision := "approve"
		switch {
		case err == nil:
		case errors.Is(err, runtime.ErrApprovalDenied):
			decision, a.refusal = "deny", err
		case errors.Is(err, runtime.ErrApprovalExpired):
			decision, a.refusal = "expired", err
		default:
			a.fatal = err
			return a
		}
		reply = approvalLine{Type: "approval", ID: id, RequestID: m.RequestID, Decision: decision}

	case wClientToolRequest:
		output, err := turn.RequestClientTool(ctx, runtime.ClientToolRequest{
			Name: m.Name, Arguments: m.Arguments, CallID: m.CallID,
		})
		l := clientToolLine{Type: "client_tool", ID: id, RequestID: m.RequestID}
		switch {
		case err == nil:
			if len(bytes.TrimSpace(output)) == 0 {
				output = json.RawMessage("null")
			}
			l.Output = output
		case errors.Is(err, runtime.ErrClientToolFailed) && ctx.Err() == nil:
			l.Error = "client tool did not return"
		default:
			a.fatal = err
			return a
		}
		reply = l
	}
	line, err := encodeLine(reply)
	if err != nil {
		a.fatal = fmt.Errorf("exec worker: encode the answer to %s: %w", m.Type, err)
		return a
	}
	a.line = line
	return a
}

// cut returns s cut to at most n bytes, marked with "..." when cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

// workerProc is one running worker process and the goroutines that serve
// it: one writes its stdin, one reads its stdout into lines, one logs its
// stderr, one waits for it to exit.
type workerProc struct {
	w      *Workers
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File
	stdout *os.File
	stderr *os.File

	lines   chan workerRead // stdout, line by line; closed at its end
	exited  chan struct{}   // closed once the process was reaped
	waitErr error           // Wait's result; read only after exited
	quit    chan struct{}   // closed by stop

	wmu   sync.Mutex
	queue [][]byte      // lines waiting for the stdin writer
	wake  chan struct{} // one token: the queue has lines

	turn atomic.Pointer[string] // the response in progress, for the log

	wg       sync.WaitGroup
	stopOnce sync.Once
}

// workerRead is one line of a worker's stdout, or why reading stopped.
type workerRead struct {
	line []byte
	err  error
}

// start starts a worker process for slot s.
func (w *Workers) start(s *workerSlot) (*workerProc, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.isClosed {
		return nil, errWorkersClosed
	}

	cmd := exec.Command(w.spec.program, w.spec.args...)
	cmd.Dir = w.spec.dir
	// HARNEST_WORKER comes last, so that configured variables cannot hide it.
	cmd.Env = append(append([]string(nil), w.spec.env...), "HARNEST_WORKER=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	var files []*os.File // every pipe end, for cleanup on failure
	pipe := func() (r, wr *os.File, err error) {
		r, wr, err = os.Pipe()
		if err == nil {
			files = append(files, r, wr)
		}
		return r, wr, err
	}
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	stdinR, stdinW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("exec worker: stdin pipe: %w", err)
	}
	stdoutR, stdoutW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("exec worker: stdout pipe: %w", err)
	}
	stderrR, stderrW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("exec worker: stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("exec worker: start worker program %s: %w", w.spec.program, err)
	}
	// The worker has its own copies of these ends now.
	stdinR.Close()
	stdoutW.Close()
	stderrW.Close()

	p := &workerProc{
		w:      w,
		cmd:    cmd,
		pid:    cmd.Process.Pid,
		stdin:  stdinW,
		stdout: stdoutR,
		stderr: stderrR,
		lines:  make(chan workerRead),
		exited: make(chan struct{}),
		quit:   make(chan struct{}),
		wake:   make(chan struct{}, 1),
	}
	w.procs[p] = struct{}{}
	p.wg.Add(4)
	go p.writeStdin()
	go p.readStdout()
	go p.logStderr(s.index)
	go func() {
		defer p.wg.Done()
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	w.logger.Debug("exec worker: started", "worker", s.index, "pid", p.pid)
	return p, nil
}

// send queues a line for the worker's stdin. It never blocks: a worker
// that does not read its stdin cannot stall the turn's reading.
func (p *workerProc) send(line []byte) {
	p.wmu.Lock()
	p.queue = append(p.queue, line)
	p.wmu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// writeStdin writes queued lines to the worker's stdin until stop.
func (p *workerProc) writeStdin() {
	defer p.wg.Done()
	for {
		select {
		case <-p.wake:
		case <-p.quit:
			return
		}
		for {
			p.wmu.Lock()
			if len(p.queue) == 0 {
				p.wmu.Unlock()
				break
			}
			line := p.queue[0]
			p.queue[0] = nil
			p.queue = p.queue[1:]
			p.wmu.Unlock()
			if _, err := p.stdin.Write(line); err != nil {
				// The worker no longer reads: it exited or closed its
				// stdin. Reading its stdout tells the turn.
				return
			}
		}
	}
}

// readStdout sends the worker's stdout to lines, one line at a time.
func (p *workerProc) readStdout() {
	defer p.wg.Done()
	defer close(p.lines)
	br := bufio.NewReaderSize(p.stdout, 64<<10)
	for {
		line, err := readLine(br, workerMaxLine)
		if errors.Is(err, errLineTooLong) {
			select {
			case p.lines <- workerRead{err: err}:
			case <-p.quit:
			}
			return
		}
		if len(line) > 0 {
			select {
			case p.lines <- workerRead{line: line}:
			case <-p.quit:
				return
			}
		}
		if err != nil { // io.EOF, or stop closed the pipe
			return
		}
	}
}

var errLineTooLong = fmt.Errorf("line longer than %d bytes", workerMaxLine)

// readLine reads one line of at most max bytes, without its "\n" or
// "\r\n". At the end of the input it returns the last, unterminated line
// (possibly empty) with io.EOF.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max+2 { // +2: the line end is not counted
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > max {
			return nil, errLineTooLong
		}
		return line, err
	}
}

// logStderr logs the worker's stderr at Warn, line by line, within the
// bounds of workerStderrLineMax and workerStderrBurst.
func (p *workerProc) logStderr(index int) {
	defer p.wg.Done()
	logger := p.w.logger
	br := bufio.NewReaderSize(p.stderr, 4<<10)
	var windowStart time.Time
	logged, dropped := 0, 0
	flushDropped := func() {
		if dropped > 0 {
			logger.Warn("exec worker: stderr lines not logged (too many)", "worker", index, "pid", p.pid, "lines", dropped)
			dropped = 0
		}
	}
	defer flushDropped()
	continued := false // the last chunk was cut by the buffer: this one is its rest
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 && !continued {
			if now := time.Now(); now.Sub(windowStart) > workerStderrWindow {
				flushDropped()
				windowStart, logged = now, 0
			}
			if logged < workerStderrBurst {
				logged++
				text := strings.TrimRight(string(chunk), "\r\n")
				attrs := []any{"worker", index, "pid", p.pid, "stderr", cut(text, workerStderrLineMax)}
				if id := p.turn.Load(); id != nil {
					attrs = append(attrs, "responseId", *id)
				}
				logger.Warn("exec worker: worker stderr", attrs...)
			} else {
				dropped++
			}
		}
		continued = errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !continued {
			return
		}
	}
}

// killGroup sends SIGKILL to the worker's process group (its pid, since it
// was started with Setpgid). Harmless when the group is gone.
func (p *workerProc) killGroup() {
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
}

// stop kills the worker's process group and waits for its goroutines. It
// may be called more than once, and from several goroutines.
func (p *workerProc) stop() {
	p.stopOnce.Do(func() {
		p.killGroup()
		close(p.quit)
		done := make(chan struct{})
		go func() {
			p.wg.Wait()
			close(done)
		}()
		timer := time.NewTimer(workerCancelGrace)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
			// A process outside the group holds a pipe open: closing our
			// ends stops the goroutines.
			p.closeFiles()
			<-done
		}
		p.closeFiles()
		p.w.mu.Lock()
		delete(p.w.procs, p)
		p.w.mu.Unlock()
	})
}

func (p *workerProc) closeFiles() {
	_ = p.stdin.Close()
	_ = p.stdout.Close()
	_ = p.stderr.Close()
}

// Compile-time checks: Workers is an agent that holds processes.
var (
	_ runtime.Agent = (*Workers)(nil)
	_ io.Closer     = (*Workers)(nil)
)
