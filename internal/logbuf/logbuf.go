// Package logbuf batches log output: a server writes one log line per
// request, and one write(2) per line cost a busy server about a tenth of
// its CPU. A Writer keeps lines in memory and writes them out together, at
// most an interval later, at once when enough have gathered, and on Flush
// or Close. A line (one Write call, as slog handlers make per record) is
// never split. What is buffered when the process dies unexpectedly is lost:
// at most one interval of lines.
package logbuf

import (
	"io"
	"sync"
	"time"
)

// flushAt is how many buffered bytes make a write at once.
const flushAt = 32 << 10

// Writer is a batching io.Writer; make one with New and Close it.
type Writer struct {
	mu   sync.Mutex
	out  io.Writer
	buf  []byte
	err  error // the first error out returned
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// New returns a Writer that writes to out at least every interval.
func New(out io.Writer, interval time.Duration) *Writer {
	w := &Writer{out: out, buf: make([]byte, 0, flushAt), stop: make(chan struct{}), done: make(chan struct{})}
	go w.flushEvery(interval)
	return w
}

// Write buffers p. It fails only once writing to out has failed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) >= flushAt {
		w.flushLocked()
	}
	return len(p), nil
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	return w.err
}

// Close stops the periodic flush and writes out what is buffered.
func (w *Writer) Close() error {
	w.once.Do(func() {
		close(w.stop)
		<-w.done
	})
	return w.Flush()
}

func (w *Writer) flushLocked() {
	if len(w.buf) == 0 || w.err != nil {
		return
	}
	if _, err := w.out.Write(w.buf); err != nil {
		w.err = err
	}
	w.buf = w.buf[:0]
}

func (w *Writer) flushEvery(interval time.Duration) {
	defer close(w.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = w.Flush()
		case <-w.stop:
			return
		}
	}
}
