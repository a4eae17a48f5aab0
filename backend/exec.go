package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/tracing"
	"github.com/harnest/harnest/runtime"
)

const (
	// execReadSize is the most stdout bytes read (and so emitted) at once.
	execReadSize = 4 << 10
	// execStderrKeep is how much of the end of stderr is kept for the log.
	execStderrKeep = 4 << 10
	// execGrace bounds how long we wait for pipes to close once the
	// program's process group is gone. Only a process that left the group
	// (with setsid, say) can hold them open longer.
	execGrace = 2 * time.Second
)

// Exec runs a local program for each turn. The program gets the turn's
// input on stdin and a minimal environment; what it writes to stdout is
// streamed back as text deltas while it runs; its stderr goes to the log,
// never to the client. A non-zero exit fails the turn.
//
// The program runs in its own process group. When the turn is cancelled,
// times out or the program exits, the whole group is killed, so background
// children do not outlive the turn.
type Exec struct {
	spec   execSpec
	logger *slog.Logger
}

// NewExec builds an exec agent from its config section. folderDir is the
// agent folder: a program given with a path separator ("./run.sh",
// "bin/agent") is relative to it, and so is dir. A bare program name is
// looked up in PATH now, so a missing program is reported at startup.
//
// NewExec builds turn mode only; worker mode is NewWorkers (New chooses).
func NewExec(cfg config.ExecBackend, folderDir string, logger *slog.Logger) (*Exec, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.Mode != "" && cfg.Mode != "turn" {
		return nil, fmt.Errorf("exec backend: NewExec runs mode turn, not %q", cfg.Mode)
	}
	spec, err := newExecSpec(cfg, folderDir)
	if err != nil {
		return nil, err
	}
	return &Exec{spec: spec, logger: logger}, nil
}

// Run runs the program for one turn.
func (e *Exec) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	var timeoutErr error
	if timeout := e.spec.timeout; timeout > 0 {
		timeoutErr = runtime.Errorf(runtime.ErrTimeout, "timeout",
			"agent program timed out after %s", timeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, timeoutErr)
		defer cancel()
	}

	p, err := e.start(turn, tracing.TraceParent(ctx))
	if err != nil {
		return err
	}
	// stop is safe to call twice; this one covers every early return.
	defer p.stop()

	chunks := p.chunks // set to nil once stdout is finished
	exited := p.exited // set to nil once the program has exited
	var waitErr error  // what Wait said about the program
	var pending []byte // the start of a UTF-8 character cut by a read
	var drain <-chan time.Time

	for chunks != nil || exited != nil {
		select {
		case chunk, ok := <-chunks:
			if !ok {
				// End of stdout: flush whatever is left, even if it is
				// not valid UTF-8.
				chunks = nil
				if len(pending) > 0 {
					if err := emit(textDelta(pending)); err != nil {
						return err
					}
				}
				continue
			}
			pending = append(pending, chunk...)
			complete, rest := splitUTF8(pending)
			if len(complete) > 0 {
				if err := emit(textDelta(complete)); err != nil {
					return err
				}
			}
			pending = append([]byte(nil), rest...)

		case <-exited:
			exited = nil
			waitErr = p.waitErr
			// The turn is over: kill what the program left running, so
			// its stdout closes. Keep reading what is already written.
			p.killGroup()
			timer := time.NewTimer(execGrace)
			defer timer.Stop()
			drain = timer.C

		case <-drain:
			// A process outside the group still holds stdout open.
			e.logger.Warn("exec backend: agent program exited but its output stayed open; ignoring the rest",
				"responseId", turn.ResponseID)
			chunks = nil

		case <-ctx.Done():
			p.stop()
			if timeoutErr != nil && context.Cause(ctx) == timeoutErr {
				return timeoutErr
			}
			return ctx.Err()
		}
	}

	p.stop() // waits for the stderr reader, so the tail below is complete
	stderr := p.stderrTail.String()

	if waitErr != nil {
		var exitErr *exec.ExitError
		if !errors.As(waitErr, &exitErr) {
			return fmt.Errorf("exec backend: wait for agent program: %w", waitErr)
		}
		var failure *runtime.Error
		if code := exitErr.ExitCode(); code >= 0 {
			failure = runtime.Errorf(runtime.ErrAgentFailed, "agent_failed",
				"agent program exited with status %d", code)
		} else {
			failure = runtime.Errorf(runtime.ErrAgentFailed, "agent_failed",
				"agent program was killed by a signal (%s)", exitErr.ProcessState.String())
		}
		e.logger.Warn("exec backend: agent program failed",
			"responseId", turn.ResponseID,
			"error", failure.Detail,
			"stderr", stderr)
		return failure
	}

	if stderr != "" {
		e.logger.Debug("exec backend: agent program wrote to stderr",
			"responseId", turn.ResponseID,
			"stderr", stderr)
	}
	return nil
}

func textDelta(b []byte) runtime.Event {
	return runtime.Event{Type: runtime.EventTextDelta, Delta: string(b)}
}

// execProcess is the program running for one turn: its stdout comes as
// chunks, the end of its stderr is kept for the log.
type execProcess struct {
	*process
	chunks     chan []byte // stdout, as read; closed at end of stdout
	stderrTail tailBuffer  // the end of stderr; read only after stop
}

// start starts the program for turn, with goroutines that feed its stdin
// and read its stdout and stderr.
func (e *Exec) start(turn *runtime.Turn, traceParent string) (*execProcess, error) {
	// The turn's ids and trace context come last, so that configured
	// variables cannot hide them.
	// HARNEST_ATTEMPT is 1, or more for a turn run again after its
	// replica was lost (spec.onReplicaLoss: rerun).
	env := []string{"HARNEST_SESSION_ID=" + turn.SessionID, "HARNEST_RESPONSE_ID=" + turn.ResponseID,
		"HARNEST_ATTEMPT=" + strconv.Itoa(max(turn.Attempt, 1))}
	if traceParent != "" { // the turn's W3C trace context, when it is traced
		env = append(env, "TRACEPARENT="+traceParent)
	}
	proc, err := startProcess(e.spec, "exec backend", "agent program", env...)
	if err != nil {
		return nil, err
	}
	p := &execProcess{process: proc, chunks: make(chan []byte)}
	p.stderrTail.max = execStderrKeep
	p.serve(
		func() { // stdin: the input, then end of file
			// An error means the program stopped reading (or exited):
			// the input it did not read is simply lost.
			_, _ = io.WriteString(p.stdin, turn.Input)
			_ = p.stdin.Close()
		},
		p.readStdout,
		func() { // stderr, keeping only its end
			_, _ = io.Copy(&p.stderrTail, p.stderr)
		},
	)
	return p, nil
}

// readStdout sends stdout to chunks as it arrives, until its end or stop.
func (p *execProcess) readStdout() {
	defer close(p.chunks)
	buf := make([]byte, execReadSize)
	for {
		n, err := p.stdout.Read(buf)
		if n > 0 {
			chunk := append([]byte(nil), buf[:n]...)
			select {
			case p.chunks <- chunk:
			case <-p.quit:
				return
			}
		}
		if err != nil { // io.EOF, or stop closed the pipe
			return
		}
	}
}

// splitUTF8 splits b before an incomplete UTF-8 character at its end, so
// that a read that cut a character in two does not send half of it.
// complete is everything up to that character; rest is its first bytes,
// to be put in front of the next read. Invalid bytes are not held back.
func splitUTF8(b []byte) (complete, rest []byte) {
	// A character is at most utf8.UTFMax bytes: look back that far for
	// the byte that starts the last one.
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if !utf8.RuneStart(b[i]) {
			continue // a continuation byte: the start is further back
		}
		if utf8.FullRune(b[i:]) {
			return b, nil
		}
		return b[:i], b[i:]
	}
	return b, nil
}
