package toolrun

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harnest/harnest/internal/program"
)

// stdioTerminateWait is how long closing a stdio server waits for it to
// exit after its stdin closed, and again after SIGTERM.
const stdioTerminateWait = 2 * time.Second

// maxStderrLine bounds one logged line of a stdio server's stderr.
const maxStderrLine = 4 << 10

// transport is a fresh transport for one connection attempt, and what
// cleans up after it: for stdio, a kill of the server's process group
// (it runs in its own, so that nothing it started outlives it); for HTTP,
// closing the attempt's idle connections.
func (m *mcpServer) transport() (mcp.Transport, func(), error) {
	if m.cfg.Command == "" {
		transport, httpTransport := m.httpTransport()
		return transport, httpTransport.CloseIdleConnections, nil
	}
	path, err := program.Resolve(m.cfg.Command, m.folder)
	if err != nil {
		return nil, nil, errors.New("it cannot start: " + err.Error())
	}
	cmd := exec.Command(path, m.cfg.Args...)
	cmd.Dir = m.folder
	cmd.Env = program.MinimalEnv(m.cfg.Env)
	cmd.Stderr = &lineLogger{logger: m.logger}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = stdioTerminateWait
	kill := func() {
		if cmd.Process != nil {
			killGroup(cmd.Process.Pid)
		}
	}
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: stdioTerminateWait}, kill, nil
}

// httpTransport is a Streamable HTTP transport whose requests all carry
// the configured headers, and the HTTP transport under it.
func (m *mcpServer) httpTransport() (mcp.Transport, *http.Transport) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	client := &http.Client{Transport: &headerRoundTripper{headers: m.cfg.Headers, base: base}}
	return &mcp.StreamableClientTransport{Endpoint: m.cfg.URL, HTTPClient: client}, base
}

// headerRoundTripper adds fixed headers to every request.
type headerRoundTripper struct {
	headers map[string]string
	base    http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (h *headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) == 0 {
		return h.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	for name, value := range h.headers {
		req.Header.Set(name, value)
	}
	return h.base.RoundTrip(req)
}

// plainError drops the URL from an HTTP client error (a URL may carry a
// token in its query); other errors are returned as they are.
func plainError(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) && uerr.Err != nil {
		return uerr.Err
	}
	return err
}

// lineLogger logs each line a stdio server writes on stderr at Debug.
type lineLogger struct {
	logger *slog.Logger
	mu     sync.Mutex
	line   []byte
}

// Write implements io.Writer; it never fails.
func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.line = append(l.line, p...)
			if len(l.line) >= maxStderrLine {
				l.flush()
			}
			break
		}
		l.line = append(l.line, p[:i]...)
		l.flush()
		p = p[i+1:]
	}
	return n, nil
}

// flush logs the buffered line (cut to maxStderrLine).
func (l *lineLogger) flush() {
	if len(bytes.TrimSpace(l.line)) == 0 {
		l.line = l.line[:0]
		return
	}
	line := l.line
	if len(line) > maxStderrLine {
		line = line[:maxStderrLine]
	}
	l.logger.Debug("MCP server stderr", "line", string(bytes.ToValidUTF8(bytes.TrimRight(line, "\r"), []byte("\uFFFD"))))
	l.line = l.line[:0]
}
