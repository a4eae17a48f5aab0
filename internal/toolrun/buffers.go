package toolrun

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"
)

// errOutputTooLarge stops copying a program's stdout past its limit.
var errOutputTooLarge = errors.New("output too large")

// limitedBuffer keeps up to limit bytes; a write past it fails (which
// closes the pipe, so the program stops on its next write) and sets
// overflow.
type limitedBuffer struct {
	limit    int
	mu       sync.Mutex
	buf      bytes.Buffer
	overflow bool
}

// Write implements io.Writer.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len()+len(p) > b.limit {
		b.overflow = true
		return 0, errOutputTooLarge
	}
	return b.buf.Write(p)
}

// Bytes is what was written (read it only after the writer is done).
func (b *limitedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes()
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	limit int
	mu    sync.Mutex
	buf   []byte
}

// Write implements io.Writer; it never fails.
func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// String is the tail as valid UTF-8.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.ToValidUTF8(string(b.buf), "\uFFFD")
}

// lastBytes is the end of s, at most n bytes, starting at a rune.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}
