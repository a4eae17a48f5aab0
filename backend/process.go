package backend

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// processGrace bounds how long stop waits for the goroutines of a process
// once its group is killed. Only a process that left the group (with
// setsid, say) can hold its pipes open longer; then our ends are closed.
const processGrace = 2 * time.Second

// process is a program running in its own process group, with our ends of
// its stdin, stdout and stderr pipes and the goroutines that serve them.
// Both exec modes run their programs as one: killing the group kills the
// program with every child it left, and stop leaves no goroutine behind.
type process struct {
	pid    int      // also the id of its process group (Setpgid)
	stdin  *os.File // our ends of its pipes; stop closes them
	stdout *os.File
	stderr *os.File

	exited  chan struct{} // closed once the program was reaped
	waitErr error         // Wait's result; read only after exited
	quit    chan struct{} // closed by stop: nobody reads any more

	wg       sync.WaitGroup // the reaper and the goroutines of serve
	stopOnce sync.Once
}

// startProcess starts the program of spec in a new process group, with
// spec's minimal environment followed by env (last, so that configured
// variables cannot hide them: for duplicate names, the last one wins), and
// reaps it in a goroutine, so it never stays a zombie. Once the program
// has exited, our end of its stdin is closed, as Wait does for
// cmd.StdinPipe. errPrefix and what name it in errors ("exec backend",
// "agent program").
func startProcess(spec execSpec, errPrefix, what string, env ...string) (*process, error) {
	cmd := exec.Command(spec.program, spec.args...)
	cmd.Dir = spec.dir
	cmd.Env = append(append([]string(nil), spec.env...), env...)
	// Its own process group, so that we can kill it with its children.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	// Our own pipes (not cmd.StdoutPipe and the like), because Wait
	// closes those and we read on after the program exits.
	var files []*os.File // every pipe end, for cleanup on failure
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	var ends [3]struct{ r, w *os.File }
	for i, name := range []string{"stdin", "stdout", "stderr"} {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("%s: %s pipe: %w", errPrefix, name, err)
		}
		files = append(files, r, w)
		ends[i].r, ends[i].w = r, w
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ends[0].r, ends[1].w, ends[2].w
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("%s: start %s %s: %w", errPrefix, what, spec.program, err)
	}
	// The program has its own copies of these ends now; ours must be
	// closed, or its stdout would never end.
	_ = ends[0].r.Close()
	_ = ends[1].w.Close()
	_ = ends[2].w.Close()

	p := &process{
		pid:    cmd.Process.Pid,
		stdin:  ends[0].w,
		stdout: ends[1].r,
		stderr: ends[2].r,
		exited: make(chan struct{}),
		quit:   make(chan struct{}),
	}
	p.serve(func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
		// Nobody reads stdin any more: a writer blocked on it stops.
		_ = p.stdin.Close()
	})
	return p, nil
}

// serve runs each f in a goroutine that stop waits for. Call it before
// anything may call stop.
func (p *process) serve(fs ...func()) {
	p.wg.Add(len(fs))
	for _, f := range fs {
		go func() {
			defer p.wg.Done()
			f()
		}()
	}
}

// killGroup sends SIGKILL to the program's whole process group (a negative
// pid names the group). It is harmless when the group is already gone.
func (p *process) killGroup() {
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
}

// stop kills the process group and waits for every goroutine of the
// process to finish, closing our pipe ends if that takes longer than
// processGrace. It may be called more than once, and from several
// goroutines.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.killGroup()
		close(p.quit)

		done := make(chan struct{})
		go func() {
			p.wg.Wait()
			close(done)
		}()
		timer := time.NewTimer(processGrace)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
			// Someone outside the group holds a pipe open: closing our
			// ends stops the goroutines.
			p.closePipes()
			<-done
		}
		p.closePipes()
	})
}

func (p *process) closePipes() {
	_ = p.stdin.Close()
	_ = p.stdout.Close()
	_ = p.stderr.Close()
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

// What a program writes goes to the log only in bounded amounts: tailBuffer
// keeps the end of a stream, cut the start of a line.

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

// cut returns s cut to at most n bytes, marked with "..." when cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
