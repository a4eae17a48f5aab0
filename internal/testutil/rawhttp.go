package testutil

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// RawConn speaks HTTP/1.1 by hand over one TCP connection. It exists to do
// what net/http's client never does: write a whole request, head and body,
// before reading anything, as clients like Python's urllib do (so a server
// that answers early, say 413 to an oversized body, must still get its
// answer to them rather than a reset), or send a body slowly.
type RawConn struct {
	t testing.TB
	// Conn is the connection, for tests that go beyond HTTP (a hijacked
	// connection) or set their own deadlines.
	Conn net.Conn
	// Reader reads from Conn; read through it, not Conn, once Read or
	// Closed has been called.
	Reader *bufio.Reader
}

// DialRaw connects to addr (host:port) within 5 s; the connection is closed
// when the test ends.
func DialRaw(t testing.TB, addr string) *RawConn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &RawConn{t: t, Conn: conn, Reader: bufio.NewReader(conn)}
}

// Write writes each part in turn, whole; it fails the test when the server
// reset the connection or stopped reading for 20 s.
func (c *RawConn) Write(parts ...[]byte) {
	c.t.Helper()
	_ = c.Conn.SetWriteDeadline(time.Now().Add(20 * time.Second))
	for _, b := range parts {
		if _, err := c.Conn.Write(b); err != nil {
			c.t.Fatalf("writing the request (%d bytes): %v", len(b), err)
		}
	}
}

// Send writes the parts of a request (Write), all of them before reading,
// then reads one response (Read).
func (c *RawConn) Send(parts ...[]byte) (*http.Response, []byte) {
	c.t.Helper()
	c.Write(parts...)
	return c.Read()
}

// Read reads one response and its whole body within 20 s, failing the test
// otherwise.
func (c *RawConn) Read() (*http.Response, []byte) {
	c.t.Helper()
	_ = c.Conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(c.Reader, nil)
	if err != nil {
		c.t.Fatalf("reading the response: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("reading the response body: %v", err)
	}
	return resp, body
}

// Drip writes a space every 100 ms in the background, for at most 5 s, as a
// slow body would arrive. Call stop (once) when the answer is in: it ends
// the dripping and waits for it.
func (c *RawConn) Drip() (stop func()) {
	done, dripped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(dripped)
		for i := 0; i < 50; i++ {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			_ = c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
			if _, err := c.Conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	return func() {
		close(done)
		<-dripped
	}
}

// Closed reports whether the server closed the connection within 5 s
// (anything but a timeout reading the next byte counts as closed).
func (c *RawConn) Closed() bool {
	_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := c.Reader.ReadByte()
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// Close closes the connection now, rather than when the test ends.
func (c *RawConn) Close() { _ = c.Conn.Close() }
