package toolrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/program"
)

// Bounds of an exec tool's output.
const (
	maxToolStdout = 1 << 20  // more is an error result
	maxStderrTail = 1 << 10  // of stderr in the error sentence
	maxStderrLog  = 64 << 10 // of stderr in the Debug log
)

// execWaitDelay bounds how long a finished (or killed) program's pipes may
// stay open, held by a child it left behind.
const execWaitDelay = 2 * time.Second

// runExec runs an exec tool: argv (never a shell) in the agent folder or
// exec.dir, with the minimal environment and the arguments as JSON on
// stdin, in its own process group, which is killed on timeout or when ctx
// is done, and once the program has exited (nothing it started outlives
// the call).
func (s *Set) runExec(ctx context.Context, e *entry, args json.RawMessage) (Result, error) {
	spec := e.exec
	name := e.tool.Name
	if spec == nil || len(spec.Command) == 0 || spec.Command[0] == "" {
		return errorResult(fmt.Sprintf("the tool %s has no command configured, so it cannot run", name)), nil
	}
	path, err := program.Resolve(spec.Command[0], s.folder)
	if err != nil {
		s.logger.Warn("a server tool cannot run: its program was not found", "tool", name, "err", err)
		return errorResult(fmt.Sprintf("the tool %s cannot run: its program was not found on the server", name)), nil
	}
	timeout, args := callTimeout(spec.Timeout()), callArgs(args)

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, path, spec.Command[1:]...)
	cmd.Dir = s.execDir(spec)
	cmd.Env = program.MinimalEnv(spec.Env)
	if id := callID(ctx); id != "" {
		cmd.Env = append(cmd.Env, EnvCallID+"="+id)
	}
	cmd.Stdin = bytes.NewReader(args)
	stdout := &limitedBuffer{limit: maxToolStdout}
	stderr := &tailBuffer{limit: maxStderrLog}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = execWaitDelay

	runErr := cmd.Run()
	if cmd.Process != nil {
		// Whatever the program left running in its group goes too.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if tail := stderr.String(); tail != "" {
		s.logger.Debug("server tool stderr", "tool", name, "stderr", tail)
	}

	switch {
	case ctx.Err() != nil:
		return Result{}, fmt.Errorf("tool %s: %w", name, ctx.Err())
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return errorResult(fmt.Sprintf("the tool %s did not finish within %s and was stopped", name, timeout)), nil
	case stdout.overflow:
		return errorResult(fmt.Sprintf("the tool %s wrote more than %d bytes of output, which is too much; ask it for less", name, maxToolStdout)), nil
	case runErr != nil:
		return s.execFailure(name, runErr, stderr), nil
	}
	return execOutput(stdout.Bytes()), nil
}

// execDir is where the tool runs: the agent folder, or exec.dir (relative
// to the folder).
func (s *Set) execDir(spec *config.ToolExec) string {
	if spec.Dir == "" {
		return s.folder
	}
	if filepath.IsAbs(spec.Dir) {
		return spec.Dir
	}
	return filepath.Join(s.folder, spec.Dir)
}

// execFailure is the result of a program that did not exit with 0.
func (s *Set) execFailure(name string, runErr error, stderr *tailBuffer) Result {
	var exitErr *exec.ExitError
	if !errors.As(runErr, &exitErr) {
		s.logger.Warn("a server tool could not run", "tool", name, "err", runErr)
		return errorResult(fmt.Sprintf("the tool %s could not be run on the server", name))
	}
	tail := lastBytes(strings.TrimSpace(stderr.String()), maxStderrTail)
	var sentence string
	if status, ok := exitErr.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		sentence = fmt.Sprintf("the tool failed (killed by signal %s)", status.Signal())
	} else {
		sentence = fmt.Sprintf("the tool failed (exit status %d)", exitErr.ExitCode())
	}
	if tail != "" {
		sentence += ": " + tail
	}
	return errorResult(sentence)
}

// execOutput is a successful program's stdout: the JSON value when it
// parses, else the text as a JSON string (trailing newline trimmed).
func execOutput(stdout []byte) Result {
	if json.Valid(stdout) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, stdout); err == nil {
			return Result{Output: compact.Bytes()}
		}
	}
	text := strings.TrimSuffix(string(stdout), "\n")
	text = strings.TrimSuffix(text, "\r")
	out, _ := json.Marshal(text)
	return Result{Output: out}
}
