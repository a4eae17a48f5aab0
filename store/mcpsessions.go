package store

import (
	"context"
	"time"
)

// MCPSessions are the MCP door's sessions: which of a user's sessions are
// live, each until it has been idle for the time its door gives. What a
// session holds travels in its ID (sealed); the store keeps only whether
// it lives, so that an idle or deleted session ends on every replica.
// Session IDs are the door's (short, random). Owner: the MCP door (mcpapi).
type MCPSessions interface {
	// PutMCPSession makes the user's session live until idle from now
	// (replacing an earlier expiry).
	PutMCPSession(ctx context.Context, user, id string, idle time.Duration) error
	// TouchMCPSession makes a live session live until idle from now; false,
	// and nothing changed, when the session is not live (never put,
	// expired or deleted).
	TouchMCPSession(ctx context.Context, user, id string, idle time.Duration) (bool, error)
	// DeleteMCPSession ends a session; false when it was not live.
	DeleteMCPSession(ctx context.Context, user, id string) (bool, error)
}
