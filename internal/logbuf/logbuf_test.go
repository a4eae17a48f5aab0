package logbuf

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the flusher's goroutine, counting
// the writes it gets.
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuffer) read() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String(), s.writes
}

func TestLinesAreBatchedAndKeptWhole(t *testing.T) {
	out := &syncBuffer{}
	w := New(out, time.Hour) // no periodic flush during the test
	for i := 0; i < 100; i++ {
		if _, err := w.Write([]byte("line\n")); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := out.read(); got != "" {
		t.Fatalf("written before a flush: %q", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, writes := out.read()
	if got != strings.Repeat("line\n", 100) || writes != 1 {
		t.Fatalf("%d writes of %q, want one of 100 lines", writes, got)
	}
}

func TestFlushesPeriodicallyAndWhenFull(t *testing.T) {
	out := &syncBuffer{}
	w := New(out, 10*time.Millisecond)
	defer w.Close()
	w.Write([]byte("soon\n"))
	for i := 0; i < 500; i++ {
		if got, _ := out.read(); got == "soon\n" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got, _ := out.read(); got != "soon\n" {
		t.Fatalf("not flushed by the interval: %q", got)
	}
	big := New(out, time.Hour)
	defer big.Close()
	big.Write(bytes.Repeat([]byte("x"), flushAt))
	if got, _ := out.read(); len(got) != len("soon\n")+flushAt {
		t.Fatalf("a full buffer was not written at once (%d bytes out)", len(got))
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteFailsOnceOutputFailed(t *testing.T) {
	w := New(failing{}, time.Hour)
	w.Write([]byte("a\n"))
	if err := w.Flush(); err == nil {
		t.Fatal("flush to a failing output reported no error")
	}
	if _, err := w.Write([]byte("b\n")); err == nil {
		t.Fatal("write after a failed flush reported no error")
	}
	w.Close()
}
