package a2a

import (
	"context"
	"net/http"

	"github.com/harnest/harnest/internal/sse"
	"github.com/harnest/harnest/runtime"
)

// The JSON-RPC methods, one function each (both versions' names): what
// dispatchRPC calls once the request is read and its version known.

// rpcCall is one JSON-RPC call being answered: who asks, the request, and
// the version and codec of its answer.
type rpcCall struct {
	s       *Server
	w       http.ResponseWriter
	ctx     context.Context
	p       runtime.Principal
	req     rpcRequest
	version string
	c       codec
}

// fail answers the call with a JSON-RPC error.
func (c *rpcCall) fail(err error) { writeRPCError(c.w, c.req.ID, err, c.version) }

// failStream answers a streaming call that fails before its first event
// with an event stream holding one JSON-RPC error, as a2a-go's own server
// does: streaming clients of both versions (a2a-go v2, @a2a-js/sdk) read
// the answer only as a stream, and a2a-go v2 takes a plain JSON body for
// an empty stream, reporting no error at all.
func (c *rpcCall) failStream(err error) {
	sw := sse.Start(c.w, 0)
	defer sw.Close()
	writeRPCErrorEvent(sw, c.req.ID, err, c.version)
}

// ok answers the call with its result.
func (c *rpcCall) ok(v any) { writeRPC(c.w, rpcResponse{ID: c.req.ID, Result: v}) }

// decodeSend reads the params of a send in the call's version.
func (c *rpcCall) decodeSend() (sendRequest, error) {
	decode := decodeSend10Params
	if c.version == v03 {
		decode = decodeSend03
	}
	sr, err := decode(c.req.Params)
	if err == nil {
		err = c.s.withSendPush(&sr, c.req.Params, c.version)
	}
	return sr, err
}

// send is SendMessage (message/send).
func (c *rpcCall) send() {
	sr, err := c.decodeSend()
	if err != nil {
		c.fail(err)
		return
	}
	res, err := c.s.sendWithPush(c.ctx, c.p, sr)
	if err != nil {
		c.fail(err)
		return
	}
	if c.version == v10 && res.Message != nil {
		writeRPCMessage(c.w, c.req.ID, res.Message) // the common answer, appended
		return
	}
	c.ok(c.c.result(res))
}

// sendStreaming is SendStreamingMessage (message/stream).
func (c *rpcCall) sendStreaming() {
	sr, err := c.decodeSend()
	if err != nil {
		c.failStream(err)
		return
	}
	f, err := c.s.openStreamWithPush(c.ctx, c.p, sr)
	if err != nil {
		c.failStream(err)
		return
	}
	sw := sse.Start(c.w, c.s.keepAlive)
	defer sw.Close()
	_ = f.each(c.ctx, func(e StreamEvent) error { return c.s.rpcEvent(sw, c.req.ID, c.c, e) })
}

// getTask is GetTask (tasks/get).
func (c *rpcCall) getTask() {
	tp, err := decodeTaskID(c.req.Params)
	if err != nil {
		c.fail(err)
		return
	}
	t, err := c.s.getTask(c.ctx, c.p, tp.ID, tp.HistoryLength)
	if err != nil {
		c.fail(err)
		return
	}
	c.ok(c.c.task(t))
}

// listTasks is ListTasks (tasks/list).
func (c *rpcCall) listTasks() {
	decode := decodeList10
	if c.version == v03 {
		decode = decodeList03
	}
	q, err := decode(c.req.Params)
	if err != nil {
		c.fail(err)
		return
	}
	l, err := c.s.listTasks(c.ctx, c.p, q)
	if err != nil {
		c.fail(err)
		return
	}
	c.ok(c.c.list(l))
}

// cancelTask is CancelTask (tasks/cancel).
func (c *rpcCall) cancelTask() {
	tp, err := decodeTaskID(c.req.Params)
	if err != nil {
		c.fail(err)
		return
	}
	t, err := c.s.cancelTask(c.ctx, c.p, tp.ID)
	if err != nil {
		c.fail(err)
		return
	}
	c.ok(c.c.task(t))
}

// subscribe is SubscribeToTask (tasks/resubscribe).
func (c *rpcCall) subscribe() {
	tp, err := decodeTaskID(c.req.Params)
	if err != nil {
		c.failStream(err)
		return
	}
	m, err := c.s.openSubscription(c.ctx, c.p, tp.ID)
	if err != nil {
		c.failStream(err)
		return
	}
	sw := sse.Start(c.w, c.s.keepAlive)
	defer sw.Close()
	err = c.s.follow(c.ctx, c.p, m, func(e StreamEvent) error { return c.s.rpcEvent(sw, c.req.ID, c.c, e) })
	if err != nil && c.ctx.Err() == nil {
		writeRPCErrorEvent(sw, c.req.ID, err, c.version)
	}
}

// extendedCard is GetExtendedAgentCard (agent/getAuthenticatedExtendedCard).
func (c *rpcCall) extendedCard() {
	card, e := c.s.extendedCard(c.p, c.version)
	if e != nil {
		c.fail(e)
		return
	}
	c.ok(card)
}

// push is one of the push notification config methods (push_rpc.go).
func (c *rpcCall) push() {
	res, err := c.s.rpcPush(c.ctx, c.p, c.req.Method, c.req.Params, c.version)
	if err != nil {
		c.fail(err)
		return
	}
	c.ok(res)
}
