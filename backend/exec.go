package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/harnest/harnest/config"
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

// Fallbacks for the minimal environment when the server has none.
const (
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
	defaultLang = "C.UTF-8"
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
	program string   // absolute path, or a name found in PATH
	args    []string // command[1:]
	dir     string   // absolute working directory
	env     []string // PATH, HOME, LANG and the configured variables
	timeout time.Duration
	logger  *slog.Logger
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
	return &Exec{
		program: spec.program,
		args:    spec.args,
		dir:     spec.dir,
		env:     spec.env,
		timeout: spec.timeout,
		logger:  logger,
	}, nil
}

// execSpec is what both exec modes make of their config section: the
// program, its arguments, working directory, environment and timeout.
type execSpec struct {
	program string
	args    []string
	dir     string
	env     []string
	timeout time.Duration
}

// newExecSpec checks and resolves an exec config section against the agent
// folder.
func newExecSpec(cfg config.ExecBackend, folderDir string) (execSpec, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return execSpec{}, errors.New("exec backend: command is empty; give the program and its arguments as a list")
	}
	if cfg.TimeoutSeconds < 0 {
		return execSpec{}, fmt.Errorf("exec backend: timeoutSeconds is %d; it must be 0 (no timeout) or more", cfg.TimeoutSeconds)
	}

	folder, err := filepath.Abs(folderDir)
	if err != nil {
		return execSpec{}, fmt.Errorf("exec backend: agent folder %q: %w", folderDir, err)
	}

	program, err := resolveProgram(cfg.Command[0], folder)
	if err != nil {
		return execSpec{}, err
	}

	dir := folder
	if cfg.Dir != "" {
		dir = cfg.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(folder, dir)
		}
	}
	info, err := os.Stat(dir)
	if err != nil {
		return execSpec{}, fmt.Errorf("exec backend: working directory: %w", err)
	}
	if !info.IsDir() {
		return execSpec{}, fmt.Errorf("exec backend: working directory %s is not a directory", dir)
	}

	return execSpec{
		program: program,
		args:    cfg.Command[1:],
		dir:     dir,
		env:     baseEnv(cfg.Env),
		timeout: time.Duration(cfg.TimeoutSeconds) * time.Second,
	}, nil
}

// resolveProgram finds the program to run: relative to the agent folder if
// name holds a path separator, in PATH otherwise.
func resolveProgram(name, folder string) (string, error) {
	if !strings.ContainsRune(name, filepath.Separator) {
		path, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("exec backend: program %q not found in PATH: %w", name, err)
		}
		return path, nil
	}

	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(folder, path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("exec backend: program: %w", err)
	}
	if info.IsDir() {
		return "", fmt.Errorf("exec backend: program %s is a directory", path)
	}
	return path, nil
}

// baseEnv is the environment every turn starts from: PATH, HOME and LANG
// from the server, then the configured variables in name order. The
// server's other variables are not passed on: they may hold secrets.
func baseEnv(extra map[string]string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = defaultPath
	}
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = defaultLang
	}
	env := []string{"PATH=" + path, "LANG=" + lang}
	if home := os.Getenv("HOME"); home != "" {
		env = append(env, "HOME="+home)
	}

	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		env = append(env, name+"="+extra[name])
	}
	return env
}

// Run runs the program for one turn.
func (e *Exec) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	var timeoutErr error
	if e.timeout > 0 {
		timeoutErr = runtime.Errorf(runtime.ErrTimeout, "timeout",
			"agent program timed out after %s", e.timeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, e.timeout, timeoutErr)
		defer cancel()
	}

	p, err := e.start(turn)
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

		case waitErr = <-exited:
			exited = nil
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
	stderr := p.stderr.String()

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

// process is one running program and the goroutines that serve it.
type process struct {
	cmd     *exec.Cmd
	stdoutR *os.File
	stderrR *os.File

	chunks chan []byte   // stdout, as read; closed at end of stdout
	exited chan error    // Wait's result; buffered, receives exactly once
	quit   chan struct{} // closed by stop: nobody reads chunks any more
	stderr tailBuffer    // the end of stderr; read only after stop

	wg      sync.WaitGroup // the goroutines below
	stopped bool
}

// start starts the program for turn, with goroutines that feed its stdin,
// read its stdout and stderr, and wait for it to exit.
func (e *Exec) start(turn *runtime.Turn) (*process, error) {
	cmd := exec.Command(e.program, e.args...)
	cmd.Dir = e.dir
	// The turn's ids come last, so that configured variables cannot hide
	// them (for duplicate names, the last one wins).
	cmd.Env = append(append([]string(nil), e.env...),
		"HARNEST_SESSION_ID="+turn.SessionID,
		"HARNEST_RESPONSE_ID="+turn.ResponseID,
	)
	// Its own process group, so that we can kill it with its children.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	// stdout and stderr are our own pipes (not cmd.StdoutPipe), because
	// Wait closes those and we read on after the program exits.
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("exec backend: stdout pipe: %w", err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		return nil, fmt.Errorf("exec backend: stderr pipe: %w", err)
	}
	cmd.Stdout = stdoutW
	cmd.Stderr = stderrW
	stdin, err := cmd.StdinPipe() // Wait closes it once the program exits
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		stderrR.Close()
		stderrW.Close()
		return nil, fmt.Errorf("exec backend: stdin pipe: %w", err)
	}

	err = cmd.Start()
	// The program has its own copies of the write ends now (or failed to
	// start); ours must be closed, or stdout would never end.
	stdoutW.Close()
	stderrW.Close()
	if err != nil {
		stdoutR.Close()
		stderrR.Close()
		stdin.Close()
		return nil, fmt.Errorf("exec backend: start agent program %s: %w", e.program, err)
	}

	p := &process{
		cmd:     cmd,
		stdoutR: stdoutR,
		stderrR: stderrR,
		chunks:  make(chan []byte),
		exited:  make(chan error, 1),
		quit:    make(chan struct{}),
	}
	p.stderr.max = execStderrKeep

	p.wg.Add(4)
	go func() { // stdin: the input, then end of file
		defer p.wg.Done()
		// An error means the program stopped reading (or exited): the
		// input it did not read is simply lost.
		_, _ = io.WriteString(stdin, turn.Input)
		_ = stdin.Close()
	}()
	go func() { // stdout, chunk by chunk as it arrives
		defer p.wg.Done()
		defer close(p.chunks)
		buf := make([]byte, execReadSize)
		for {
			n, err := p.stdoutR.Read(buf)
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
	}()
	go func() { // stderr, keeping only its end
		defer p.wg.Done()
		_, _ = io.Copy(&p.stderr, p.stderrR)
	}()
	go func() { // reap the program, so it never stays a zombie
		defer p.wg.Done()
		p.exited <- cmd.Wait()
	}()
	return p, nil
}

// killGroup sends SIGKILL to the program's whole process group. It is
// harmless when the group is already gone.
func (p *process) killGroup() {
	// The group id is the program's pid (Setpgid). A negative pid names
	// the group.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

// stop kills the process group and waits for every goroutine of the
// process to finish. It may be called more than once.
func (p *process) stop() {
	if p.stopped {
		return
	}
	p.stopped = true

	p.killGroup()
	close(p.quit)

	done := make(chan struct{})
	go func() {
		p.wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(execGrace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		// Someone outside the group holds the pipes open: closing our
		// ends stops the readers.
		p.stdoutR.Close()
		p.stderrR.Close()
		<-done
	}
	p.stdoutR.Close()
	p.stderrR.Close()
}

// tailBuffer is an io.Writer that keeps only the last max bytes written.
type tailBuffer struct {
	max       int
	buf       []byte
	truncated bool
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	n := len(b)
	t.buf = append(t.buf, b...)
	if extra := len(t.buf) - t.max; extra > 0 {
		t.buf = append(t.buf[:0], t.buf[extra:]...)
		t.truncated = true
	}
	return n, nil
}

// String returns the kept bytes, marked with "..." if earlier ones were
// dropped.
func (t *tailBuffer) String() string {
	if t.truncated {
		return "..." + string(t.buf)
	}
	return string(t.buf)
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
