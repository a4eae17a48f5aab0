package mcpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP session's requests may land on any replica, each of which holds
// its own copy of the session (copies.go). Two kinds of message concern
// what another copy holds: the client's answer to a request that a tool
// call sent (elicitation/create, on the POST stream of the call, which the
// replica running the call holds), and notifications/cancelled for a call
// that runs elsewhere. The copy that receives one of these and does not
// hold what it concerns publishes it (door messages of the runtime); the
// copy that holds it takes it in as if its client had sent it there.
//
// So that an answer names its copy, every request a copy sends gets an ID
// of its own ("harnest:<copy>:<n>"); the SDK's ID comes back on the answer.

// relayTransport is the SDK's transport with the relay between the SDK
// and it.
type relayTransport struct {
	*mcp.StreamableServerTransport
	conn *relayConn
}

func (t *relayTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := t.StreamableServerTransport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn.inner = inner
	go t.conn.pump()
	return t.conn, nil
}

// relayConn is one copy's connection: it renames the requests the SDK
// sends, keeps which calls run here, and takes in relayed messages.
type relayConn struct {
	inner   mcp.Connection
	prefix  string                    // "harnest:<copy>:": the IDs of the requests this copy sends
	publish func(raw json.RawMessage) // sends a message this copy does not hold to the others

	read     chan readResult      // what the client sent to this replica (pump)
	injected chan jsonrpc.Message // what the client sent to another replica for this copy
	done     chan struct{}
	once     sync.Once

	mu       sync.Mutex
	sent     int
	asked    map[string]jsonrpc.ID // our ID → the SDK's, for requests not yet answered
	inFlight map[string]bool       // the calls this copy runs, by their ID's JSON
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func newRelayConn(copyID string, publish func(json.RawMessage)) *relayConn {
	return &relayConn{prefix: "harnest:" + copyID + ":", publish: publish,
		read: make(chan readResult), injected: make(chan jsonrpc.Message, 8), done: make(chan struct{}),
		asked: map[string]jsonrpc.ID{}, inFlight: map[string]bool{}}
}

// pump reads the client's messages to this replica until the connection
// ends.
func (c *relayConn) pump() {
	for {
		msg, err := c.inner.Read(context.Background())
		select {
		case c.read <- readResult{msg, err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the next message for the SDK: one the client sent here, or
// one relayed from another replica. A message this copy does not hold is
// published and not handed to the SDK.
func (c *relayConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.done:
			return nil, fmt.Errorf("mcpapi: connection closed")
		case msg := <-c.injected:
			return msg, nil
		case r := <-c.read:
			if r.err != nil {
				return nil, r.err
			}
			if msg, mine := c.take(r.msg); mine {
				return msg, nil
			}
			if raw, err := jsonrpc.EncodeMessage(r.msg); err == nil {
				c.publish(raw)
			}
		}
	}
}

// take decides whether a message the client sent is this copy's; it
// returns it as the SDK must see it.
func (c *relayConn) take(msg jsonrpc.Message) (jsonrpc.Message, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		key, ok := m.ID.Raw().(string)
		if !ok || !strings.HasPrefix(key, "harnest:") {
			return msg, true // not an ID this door gave: the SDK's concern
		}
		sdkID, mine := c.asked[key]
		if !mine {
			return nil, false
		}
		delete(c.asked, key)
		answered := *m
		answered.ID = sdkID
		return &answered, true
	case *jsonrpc.Request:
		if m.IsCall() {
			c.inFlight[idKey(m.ID)] = true
			return msg, true
		}
		if m.Method != "notifications/cancelled" {
			return msg, true
		}
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) != nil || c.inFlight[string(p.RequestID)] {
			return msg, true
		}
		return nil, false // a call another replica runs
	}
	return msg, true
}

// Write sends the SDK's message, a request under an ID of this copy.
func (c *relayConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.mu.Lock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			c.sent++
			key := fmt.Sprintf("%s%d", c.prefix, c.sent)
			id, _ := jsonrpc.MakeID(key)
			c.asked[key] = m.ID
			renamed := *m
			renamed.ID = id
			msg = &renamed
		}
	case *jsonrpc.Response:
		delete(c.inFlight, idKey(m.ID))
	}
	c.mu.Unlock()
	return c.inner.Write(ctx, msg)
}

// relayed takes in a message the client sent to another replica, when it
// is this copy's: an answer to a request it sent, or the cancel of a call
// it runs.
func (c *relayConn) relayed(raw json.RawMessage) {
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return
	}
	taken, mine := c.take(msg)
	if !mine {
		return
	}
	if r, isReq := taken.(*jsonrpc.Request); isReq && r.IsCall() {
		return // a call is served where it lands
	}
	select {
	case c.injected <- taken:
	case <-c.done:
	default: // a full queue drops it: the call's wait ends by its own bounds
	}
}

func (c *relayConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return c.inner.Close()
}

func (c *relayConn) SessionID() string { return c.inner.SessionID() }

// idKey is an ID as JSON: the form notifications/cancelled names it in.
func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}
