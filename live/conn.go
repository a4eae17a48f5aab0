package live

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/runtime"
)

// conn is one socket. Its handler goroutine reads frames and runs the
// protocol; a writer goroutine sends queued frames and pings; each response
// has a goroutine that turns its events into frames. Frames wait in a
// bounded queue: a response's goroutine waits for room (which holds back
// that response's agent, and nothing else), and a client that leaves the
// queue full, or does not take a write, for WriteTimeout is dropped.
type conn struct {
	h   *Handler
	svc *runtime.Service
	ws  *websocket.Conn
	p   runtime.Principal

	ctx    context.Context // the socket's life
	cancel context.CancelFunc

	sessionID  string
	idleFrames int

	wake       chan struct{} // a frame was queued
	room       chan struct{} // a frame left the queue
	readerDone chan struct{} // the read loop has ended
	writerDone chan struct{}
	helpers    sync.WaitGroup // response goroutines

	mu      sync.Mutex // guards everything below
	queue   []outgoing
	closing bool // a close is queued or the socket is gone: nothing more is sent
	// goingAway closes the socket once its response ends (server shutdown).
	goingAway bool
	active    *liveResponse
}

// outgoing is a queued frame, or the close that ends the socket.
type outgoing struct {
	data   []byte
	close  bool
	code   int
	reason string
}

func newConn(h *Handler, ws *websocket.Conn, p runtime.Principal) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	return &conn{
		h: h, svc: h.svc, ws: ws, p: p, ctx: ctx, cancel: cancel,
		wake: make(chan struct{}, 1), room: make(chan struct{}, 1), readerDone: make(chan struct{}), writerDone: make(chan struct{}),
	}
}

// serve runs the socket until it closes, then cancels what it left running
// and waits for its goroutines and its response's receipt.
func (c *conn) serve() {
	go c.writeLoop()
	defer c.teardown()
	c.ws.SetReadLimit(c.h.maxFrame)
	extend := func() { _ = c.ws.SetReadDeadline(time.Now().Add(c.h.readTimeout)) }
	c.ws.SetPongHandler(func(string) error { extend(); return nil })
	c.ws.SetPingHandler(func(data string) error {
		extend()
		// A pong that cannot be written is the writer's failure to notice.
		_ = c.ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(c.h.writeTimeout))
		return nil
	})
	if !c.connect() {
		c.drain()
		return
	}
	for {
		data, ok := c.read()
		if !ok {
			return
		}
		c.mu.Lock()
		closing, lr := c.closing, c.active
		c.mu.Unlock()
		switch {
		case closing: // waiting for the client's close frame
		case lr == nil:
			c.idleFrame(data)
		default:
			c.activeFrame(lr, data)
		}
	}
}

// read returns the next message; false when the socket is gone (closed,
// silent past the read deadline, or an oversized frame, which the library
// answers with close 1009). A binary message reads as no frame at all.
func (c *conn) read() ([]byte, bool) {
	_ = c.ws.SetReadDeadline(time.Now().Add(c.h.readTimeout))
	mt, data, err := c.ws.ReadMessage()
	if err != nil {
		if !websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway, websocket.CloseNoStatusReceived) {
			c.h.log.Debug("live socket read ended", "err", err)
		}
		return nil, false
	}
	if mt != websocket.TextMessage {
		return nil, true
	}
	return data, true
}

// drain reads until the client answers a queued close or the writer drops
// the connection.
func (c *conn) drain() {
	for {
		if _, ok := c.read(); !ok {
			return
		}
	}
}

// teardown runs when the read loop ends, for whatever reason: the active
// response is cancelled (its receipt says cancelled), every goroutine of the
// socket ends, and the receipt is recorded before the handler returns.
func (c *conn) teardown() {
	close(c.readerDone)
	c.mu.Lock()
	c.closing = true
	lr := c.active
	c.mu.Unlock()
	if lr != nil {
		lr.resp.Cancel()
	}
	c.cancel()
	_ = c.ws.Close()
	<-c.writerDone
	c.helpers.Wait()
	if lr != nil {
		select {
		case <-lr.resp.Done():
		case <-time.After(settleTimeout):
			c.h.log.Warn("live response did not settle after its socket closed", "responseId", lr.id)
		}
	}
}

// queueSlack is how far past SendQueue the frames that never wait (the
// protocol's own, a boundary's few) may go before the client is dropped.
const queueSlack = 16

// send queues a frame. It never blocks.
func (c *conn) send(data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sendLocked(data)
}

func (c *conn) sendLocked(data []byte) {
	if c.closing {
		return
	}
	if len(c.queue) >= c.h.sendQueue+queueSlack {
		c.h.log.Info("live socket dropped: the client does not read", "queued", len(c.queue))
		c.abortLocked()
		return
	}
	c.queue = append(c.queue, outgoing{data: data})
	c.signal()
}

// closeWith queues a close after what is queued; nothing is sent after it.
func (c *conn) closeWith(code int, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeWithLocked(code, reason)
}

func (c *conn) closeWithLocked(code int, reason string) {
	if c.closing {
		return
	}
	reason = closeReason(reason)
	c.closing = true
	c.queue = append(c.queue, outgoing{close: true, code: code, reason: reason})
	c.signal()
}

// awaitRoom waits until the queue has room for a response's frame. A
// client that leaves it full for WriteTimeout is dropped; false then, or
// when the socket is closing.
func (c *conn) awaitRoom() bool {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		c.mu.Lock()
		n, closing := len(c.queue), c.closing
		c.mu.Unlock()
		if closing {
			return false
		}
		if n < c.h.sendQueue {
			return true
		}
		if timer == nil {
			timer = time.NewTimer(c.h.writeTimeout)
		}
		select {
		case <-c.room:
		case <-timer.C:
			c.h.log.Info("live socket dropped: the client does not read", "queued", n)
			c.abort()
			return false
		case <-c.ctx.Done():
			return false
		}
	}
}

// closeReason fits a reason into a close frame (123 bytes), cutting at a
// character boundary.
func closeReason(s string) string {
	if len(s) <= 123 {
		return s
	}
	cut := 123
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// abortLocked drops the connection at once: its response is cancelled and
// the read loop ends, which tears the socket down.
func (c *conn) abortLocked() {
	c.closing = true
	c.queue = nil
	if c.active != nil {
		c.active.resp.Cancel()
	}
	_ = c.ws.Close()
}

func (c *conn) abort() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.abortLocked()
}

// goAway closes the socket for a server shutdown with 1001: at once when
// it is idle, after its response's last frame otherwise; now cancels the
// response.
func (c *conn) goAway(now bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.goingAway = true
	switch {
	case c.active == nil:
		c.closeWithLocked(websocket.CloseGoingAway, msgShuttingDown)
	case now:
		c.active.resp.Cancel()
	}
}

// drop closes the connection without a close frame.
func (c *conn) drop() { c.abort() }

func (c *conn) pop() (outgoing, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		c.queue = nil // an idle socket holds no queue
		return outgoing{}, false
	}
	o := c.queue[0]
	c.queue[0] = outgoing{}
	c.queue = c.queue[1:]
	select {
	case c.room <- struct{}{}:
	default:
	}
	return o, true
}

// writeLoop sends queued frames, each within WriteTimeout, and pings every
// PingInterval. A failed write drops the connection.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	ping := time.NewTicker(c.h.pingInterval)
	defer ping.Stop()
	for {
		select {
		case <-c.wake:
			for {
				o, ok := c.pop()
				if !ok {
					break
				}
				if o.close {
					c.finishClose(o)
					return
				}
				_ = c.ws.SetWriteDeadline(time.Now().Add(c.h.writeTimeout))
				if err := c.ws.WriteMessage(websocket.TextMessage, o.data); err != nil {
					c.h.log.Debug("live socket write failed", "err", err)
					c.abort()
					return
				}
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.h.writeTimeout)); err != nil {
				c.abort()
				return
			}
		case <-c.ctx.Done():
			return
		}
	}
}

// finishClose sends the close frame, waits a moment for the client's
// answer (the read loop ends on it), then drops the connection.
func (c *conn) finishClose(o outgoing) {
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(o.code, o.reason), time.Now().Add(c.h.writeTimeout))
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-c.readerDone:
	case <-t.C:
	}
	_ = c.ws.Close()
}
