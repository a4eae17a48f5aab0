package toolrun

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// readyPingTimeout bounds one readiness ping of an MCP server.
const readyPingTimeout = 5 * time.Second

// readyAll checks every server at once.
func readyAll(ctx context.Context, servers []*mcpServer) error {
	problems := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, m := range servers {
		wg.Go(func() { problems[i] = m.ready(ctx) })
	}
	wg.Wait()

	var parts []string
	for _, err := range problems {
		if err != nil {
			parts = append(parts, err.Error())
		}
	}
	if len(parts) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("MCP servers not checked: %w", err)
	}
	noun := "server is"
	if len(parts) > 1 {
		noun = "servers are"
	}
	return fmt.Errorf("%d MCP %s not ready: %s", len(parts), noun, strings.Join(parts, "; "))
}

// ready is nil when the server is connected and answers a ping.
func (m *mcpServer) ready(ctx context.Context) error {
	session := m.current()
	if session == nil {
		m.mu.Lock()
		reason := m.downErr
		m.mu.Unlock()
		if reason == nil {
			return fmt.Errorf("%s is still connecting", m.cfg.Name)
		}
		return fmt.Errorf("%s: %v", m.cfg.Name, reason)
	}
	pingCtx, cancel := context.WithTimeout(ctx, readyPingTimeout)
	defer cancel()
	err := session.Ping(pingCtx, nil)
	_, answered := serverError(err)
	switch {
	case err == nil:
		return nil
	case answered:
		// An answer of any kind means the server is there (protocol
		// 2026-07-28 has no ping: it answers "method not found").
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		m.broken(session, err)
		return fmt.Errorf("%s does not answer a ping: %v", m.cfg.Name, plainError(err))
	}
}
