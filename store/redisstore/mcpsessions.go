package redisstore

import (
	"context"
	"fmt"
	"time"
)

// A live MCP session is one STRING under its user's tag, expiring when the
// session has been idle long enough (PX):
//
//	{u:<user>}:mcp:<id>

func (s *Store) mcpSessionKey(user, id string) string {
	return s.prefix + "{u:" + escapeID(user) + "}:mcp:" + escapeID(id)
}

// PutMCPSession makes the user's session live until idle from now.
func (s *Store) PutMCPSession(ctx context.Context, user, id string, idle time.Duration) error {
	if err := s.rdb.Set(ctx, s.mcpSessionKey(user, id), "1", idle).Err(); err != nil {
		return fmt.Errorf("store: put mcp session: %w", err)
	}
	return nil
}

// TouchMCPSession extends a live session (PEXPIRE: 0 when there is none).
func (s *Store) TouchMCPSession(ctx context.Context, user, id string, idle time.Duration) (bool, error) {
	ok, err := s.rdb.PExpire(ctx, s.mcpSessionKey(user, id), idle).Result()
	if err != nil {
		return false, fmt.Errorf("store: touch mcp session: %w", err)
	}
	return ok, nil
}

// DeleteMCPSession ends a session.
func (s *Store) DeleteMCPSession(ctx context.Context, user, id string) (bool, error) {
	n, err := s.rdb.Del(ctx, s.mcpSessionKey(user, id)).Result()
	if err != nil {
		return false, fmt.Errorf("store: delete mcp session: %w", err)
	}
	return n > 0, nil
}
