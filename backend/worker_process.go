package backend

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// This file is one worker process: starting it, writing its stdin, reading
// its stdout line by line, logging its stderr, stopping it.

const (
	// workerMaxLine is the longest line a worker may write.
	workerMaxLine = 16 << 20
	// A worker's stderr goes to the log line by line, each line cut to
	// workerStderrLineMax bytes, at most workerStderrBurst lines per
	// workerStderrWindow; the rest is counted, not logged.
	workerStderrLineMax = 1 << 10
	workerStderrBurst   = 50
	workerStderrWindow  = 10 * time.Second
)

// workerProc is one running worker process and the goroutines that serve
// it: one writes its stdin, one reads its stdout into lines, one logs its
// stderr, one waits for it to exit.
type workerProc struct {
	*process
	w *Workers

	lines chan workerRead // stdout, line by line; closed at its end

	wmu   sync.Mutex
	queue [][]byte      // lines waiting for the stdin writer
	wake  chan struct{} // one token: the queue has lines

	turn atomic.Pointer[string] // the response in progress, for the log
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

	// HARNEST_WORKER comes last, so that configured variables cannot hide it.
	proc, err := startProcess(w.spec, "exec worker", "worker program", "HARNEST_WORKER=1")
	if err != nil {
		return nil, err
	}
	p := &workerProc{
		process: proc,
		w:       w,
		lines:   make(chan workerRead),
		wake:    make(chan struct{}, 1),
	}
	w.procs[p] = struct{}{}
	p.serve(p.writeStdin, p.readStdout, func() { p.logStderr(s.index) })
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

// stop kills the worker's process group, waits for its goroutines and
// takes it off the pool's list. It may be called more than once, and from
// several goroutines.
func (p *workerProc) stop() {
	p.process.stop()
	p.w.mu.Lock()
	delete(p.w.procs, p)
	p.w.mu.Unlock()
}
