package mcpapi

import (
	"context"
	"encoding/json"
	"time"
)

// doorName names this door's messages on the runtime's control channel.
const doorName = "mcp"

// relayTimeout bounds the publication of one relayed message.
const relayTimeout = 5 * time.Second

// relayed is a door message: what the client of a session sent to one
// replica for the copy of another (relayconn.go), or that the session was
// deleted (Message nil: every copy closes).
type relayed struct {
	Session string          `json:"session"`
	User    string          `json:"user"`
	Message json.RawMessage `json:"message,omitempty"`
}

// relay publishes a message of a session's client to every replica.
func (d *door) relay(session, user string, msg json.RawMessage) {
	if d.opts.Service == nil {
		return // a door alone: no other replica
	}
	b, _ := json.Marshal(relayed{Session: session, User: user, Message: msg})
	ctx, cancel := context.WithTimeout(context.Background(), relayTimeout)
	defer cancel()
	if err := d.opts.Service.PublishDoorMessage(ctx, doorName, b); err != nil {
		d.log.Warn("mcp: cannot relay a message to the other replicas", "err", err)
	}
}

// onRelayed hands a relayed message to this replica's copy of its session,
// if there is one (on the hub's goroutine: it only queues).
func (d *door) onRelayed(payload json.RawMessage) {
	var m relayed
	if json.Unmarshal(payload, &m) != nil {
		return
	}
	c := d.copies.get(m.Session)
	if c == nil || c.user != m.User {
		return
	}
	if m.Message == nil {
		go d.closeCopy(c)
		return
	}
	c.conn.relayed(m.Message)
}
