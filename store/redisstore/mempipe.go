package redisstore

import (
	"io"
	"net"
	"sync"
	"time"
)

// memPipe is a pair of in-memory connections with buffered writes, used to
// reach the embedded Redis without a socket. Unlike net.Pipe, a write never
// waits for the reader: the embedded server flushes after every reply, and a
// synchronous pipe would hand control back and forth once per command of a
// pipeline; here a whole pipeline's replies queue up and are read at once.
func memPipe() (client, server net.Conn) {
	a, b := newMemBuffer(), newMemBuffer()
	return &memConn{in: a, out: b}, &memConn{in: b, out: a}
}

// memBuffer is one direction of a memPipe.
type memBuffer struct {
	mu     sync.Mutex
	ready  *sync.Cond
	data   []byte
	closed bool
}

func newMemBuffer() *memBuffer {
	b := &memBuffer{}
	b.ready = sync.NewCond(&b.mu)
	return b
}

func (b *memBuffer) read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.data) == 0 && !b.closed {
		b.ready.Wait()
	}
	if len(b.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	if len(b.data) == 0 {
		b.data = b.data[:0:0] // let a large drained buffer go
	}
	return n, nil
}

func (b *memBuffer) write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, io.ErrClosedPipe
	}
	b.data = append(b.data, p...)
	b.ready.Signal()
	return len(p), nil
}

func (b *memBuffer) close() {
	b.mu.Lock()
	b.closed = true
	b.ready.Broadcast()
	b.mu.Unlock()
}

// memConn is one end of a memPipe. Deadlines are accepted and ignored: the
// embedded server is in this process and always answers, and the client is
// configured without socket timeouts.
type memConn struct {
	in, out *memBuffer
}

func (c *memConn) Read(p []byte) (int, error)  { return c.in.read(p) }
func (c *memConn) Write(p []byte) (int, error) { return c.out.write(p) }

// Close ends both directions: the peer reads EOF and writes fail.
func (c *memConn) Close() error {
	c.in.close()
	c.out.close()
	return nil
}

func (c *memConn) LocalAddr() net.Addr              { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr             { return memAddr{} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

type memAddr struct{}

func (memAddr) Network() string { return "memory" }
func (memAddr) String() string  { return "embedded" }
