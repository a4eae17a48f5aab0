package toolrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/pause"
)

// Backoff between connection attempts of an MCP server that is down.
const (
	initialBackoff = time.Second
	maxBackoff     = 30 * time.Second
)

// mcpServer is the connection to one MCP server. Its run loop connects,
// lists the tools, serves the session until it ends (relisting on
// notifications/tools/list_changed), and reconnects with backoff.
type mcpServer struct {
	cfg            config.MCPServer
	folder         string
	logger         *slog.Logger
	attemptTimeout time.Duration
	onChange       func() // the set rebuilds its catalog
	client         *mcp.Client

	ctx          context.Context
	cancel       context.CancelFunc
	done         chan struct{} // closed when run returns
	firstAttempt chan struct{} // closed when the first connection attempt ended
	relist       chan struct{} // a tools/list_changed arrived

	mu      sync.Mutex
	session *mcp.ClientSession // nil while not connected
	entries []*entry           // its tools: the current list while connected, the last one while down
	downErr error              // why it is not connected; nil before the first attempt
}

// newMCPServer prepares the connection; run starts it.
func newMCPServer(cfg config.MCPServer, folder string, logger *slog.Logger, attemptTimeout time.Duration, onChange func()) *mcpServer {
	ctx, cancel := context.WithCancel(context.Background())
	m := &mcpServer{
		cfg:            cfg,
		folder:         folder,
		logger:         logger.With("server", cfg.Name),
		attemptTimeout: attemptTimeout,
		onChange:       onChange,
		ctx:            ctx,
		cancel:         cancel,
		done:           make(chan struct{}),
		firstAttempt:   make(chan struct{}),
		relist:         make(chan struct{}, 1),
	}
	m.client = mcp.NewClient(&mcp.Implementation{Name: "harnest", Version: "1"}, &mcp.ClientOptions{
		// No roots, sampling or elicitation: harnest offers none.
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			// Relist in the run loop: a request from inside a
			// notification handler could wait on itself.
			select {
			case m.relist <- struct{}{}:
			default:
			}
		},
	})
	return m
}

// run connects and reconnects until stop.
func (m *mcpServer) run() {
	defer close(m.done)
	var firstOnce sync.Once
	endFirst := func() { firstOnce.Do(func() { close(m.firstAttempt) }) }
	defer endFirst()

	delay := initialBackoff
	outage := false // an outage is logged once at Error
	for {
		conn, err := m.connect()
		endFirst()
		if m.ctx.Err() != nil {
			if conn != nil {
				conn.close()
			}
			return
		}
		if err != nil {
			m.setDown(err)
			if !outage {
				m.logDown(err)
				outage = true
			} else {
				m.logger.Debug("MCP server still not available", "err", err)
			}
		} else {
			if outage {
				m.logger.Info(fmt.Sprintf("MCP server %s answers again; its tools are offered", m.cfg.Name))
				outage = false
			}
			delay = initialBackoff
			reason := m.serve(conn)
			if m.ctx.Err() != nil {
				return
			}
			m.setDown(reason)
			m.logDown(reason)
			outage = true
		}
		if pause.For(m.ctx, delay) != nil {
			return
		}
		delay = min(2*delay, maxBackoff)
	}
}

// logDown logs, once per outage, that the server is not available.
func (m *mcpServer) logDown(err error) {
	m.logger.Error(fmt.Sprintf("MCP server %s is not available: %v; its tools are not offered until it answers, and harnest keeps retrying in the background",
		m.cfg.Name, err))
}

// connection is a session with what ends it for good.
type connection struct {
	session *mcp.ClientSession
	kill    func() // stdio: kills the server's process group; HTTP: drops idle connections
}

// close ends the session and whatever ran for it.
func (c *connection) close() {
	_ = c.session.Close()
	c.kill()
}

// connect starts one connection attempt: the transport, the MCP
// handshake, and the tool list. On success the server's tools are
// offered.
func (m *mcpServer) connect() (*connection, error) {
	ctx, cancel := context.WithTimeout(m.ctx, m.attemptTimeout)
	defer cancel()

	transport, kill, err := m.transport()
	if err != nil {
		return nil, err
	}
	session, err := m.client.Connect(ctx, transport, nil)
	if err != nil {
		kill()
		return nil, m.describeConnectError(ctx, err)
	}
	conn := &connection{session: session, kill: kill}
	entries, err := m.listTools(ctx, session)
	if err != nil {
		conn.close()
		return nil, fmt.Errorf("it does not list its tools: %w", plainError(err))
	}

	m.mu.Lock()
	m.session, m.entries, m.downErr = session, entries, nil
	m.mu.Unlock()
	m.onChange()
	return conn, nil
}

// describeConnectError says what failed in the handshake.
func (m *mcpServer) describeConnectError(ctx context.Context, err error) error {
	if ctx.Err() != nil && m.ctx.Err() == nil {
		return fmt.Errorf("it did not answer the MCP handshake within %s", m.attemptTimeout)
	}
	if m.cfg.Command != "" {
		return fmt.Errorf("it cannot start or did not answer the MCP handshake: %w", plainError(err))
	}
	return fmt.Errorf("it cannot be reached or did not answer the MCP handshake: %w", plainError(err))
}

// serve waits until the session ends (or stop), relisting the tools when
// the server says they changed. It returns why the session ended.
func (m *mcpServer) serve(conn *connection) error {
	ended := make(chan error, 1)
	go func() { ended <- conn.session.Wait() }()
	defer func() {
		m.mu.Lock()
		m.session = nil // the entries stay, to name the tools that are unavailable
		m.mu.Unlock()
		m.onChange()
	}()
	for {
		select {
		case err := <-ended:
			conn.kill()
			if err == nil {
				return errors.New("it closed the connection")
			}
			return fmt.Errorf("it stopped answering: %w", plainError(err))
		case <-m.relist:
			m.refreshTools(conn.session)
		case <-m.ctx.Done():
			conn.close()
			<-ended
			return m.ctx.Err()
		}
	}
}

// refreshTools lists the tools again after tools/list_changed.
func (m *mcpServer) refreshTools(session *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(m.ctx, m.attemptTimeout)
	defer cancel()
	entries, err := m.listTools(ctx, session)
	if err != nil {
		m.logger.Warn("MCP server's tool list could not be read again; the previous list stays offered", "err", err)
		return
	}
	m.mu.Lock()
	if m.session == session {
		m.entries = entries
	}
	m.mu.Unlock()
	m.onChange()
}

// broken ends a session that failed at the transport level, so that the
// run loop reconnects at once instead of waiting for the SDK to notice.
func (m *mcpServer) broken(session *mcp.ClientSession, err error) {
	m.mu.Lock()
	current := m.session == session
	m.mu.Unlock()
	if current {
		m.logger.Debug("MCP session failed; reconnecting", "err", plainError(err))
		_ = session.Close()
	}
}

// current is the session, or nil while the server is not connected.
func (m *mcpServer) current() *mcp.ClientSession {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.session
}

// currentEntries is the server's tools, and whether it is connected (if
// not, they are the tools it had when it was last connected).
func (m *mcpServer) currentEntries() ([]*entry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.entries, m.session != nil
}

// setDown records why the server is not connected.
func (m *mcpServer) setDown(err error) {
	m.mu.Lock()
	m.downErr = err
	m.mu.Unlock()
}

// stop ends the run loop (and with it the session and process).
func (m *mcpServer) stop() { m.cancel() }

// wait returns once the run loop has ended.
func (m *mcpServer) wait() { <-m.done }

// killGroup kills a process group; harmless when it is gone.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
