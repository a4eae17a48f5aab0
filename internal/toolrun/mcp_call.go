package toolrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxServerMessage bounds how much of an MCP server's error message goes
// to the model.
const maxServerMessage = 300

// call runs an MCP tool with tools/call, bounded by the server's timeout.
func (m *mcpServer) call(ctx context.Context, e *entry, args json.RawMessage) (Result, error) {
	name := e.tool.Name
	session := m.current()
	if session == nil {
		return errorResult(m.unavailableSentence(name)), nil
	}
	timeout, args := callTimeout(m.cfg.Timeout()), callArgs(args)

	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	params := &mcp.CallToolParams{Name: e.remoteName, Arguments: args}
	if id := callID(ctx); id != "" {
		params.Meta = mcp.Meta{MetaCallID: id}
	}
	res, err := session.CallTool(callCtx, params)
	if err == nil {
		return callResult(res), nil
	}

	wireErr, answered := serverError(err)
	switch {
	case ctx.Err() != nil:
		return Result{}, fmt.Errorf("tool %s: %w", name, ctx.Err())
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return errorResult(fmt.Sprintf("the tool %s did not answer within %s", name, timeout)), nil
	case answered:
		return errorResult(fmt.Sprintf("the MCP server %s refused the call of %s: %s",
			m.cfg.Name, name, shorten(wireErr.Message, maxServerMessage))), nil
	default:
		m.logger.Warn("MCP tool call failed", "tool", e.remoteName, "err", plainError(err))
		m.broken(session, err)
		return errorResult(fmt.Sprintf("the MCP server %s could not be reached, so the tool %s did not run; try again later or answer without it",
			m.cfg.Name, name)), nil
	}
}

// codeRejectedByTransport is the JSON-RPC code the SDK gives errors of
// its own transport (an HTTP request that failed, say): they did not come
// from the server.
const codeRejectedByTransport = -32005

// serverError is the JSON-RPC error the server answered with, if err is
// one (and not one the SDK's transport made up).
func serverError(err error) (*jsonrpc.Error, bool) {
	var wireErr *jsonrpc.Error
	if !errors.As(err, &wireErr) || wireErr.Code == codeRejectedByTransport {
		return nil, false
	}
	return wireErr, true
}

// unavailableSentence tells the model the server of a tool is down.
func (m *mcpServer) unavailableSentence(tool string) string {
	return fmt.Sprintf("the MCP server %s is not available right now, so the tool %s did not run; try again later or answer without it",
		m.cfg.Name, tool)
}

// callResult turns a tools/call result into a Result: structuredContent
// when present, else the content as text (several items joined with
// "\n"; images, audio and resources as short placeholders).
func callResult(res *mcp.CallToolResult) Result {
	if res.StructuredContent != nil {
		if out, err := json.Marshal(res.StructuredContent); err == nil && string(out) != "null" {
			return Result{Output: out, IsError: res.IsError}
		}
	}
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		parts = append(parts, contentText(c))
	}
	out, _ := json.Marshal(strings.Join(parts, "\n"))
	return Result{Output: out, IsError: res.IsError}
}

// contentText is one content item as text.
func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return "[image: " + c.MIMEType + "]"
	case *mcp.AudioContent:
		return "[audio: " + c.MIMEType + "]"
	case *mcp.ResourceLink:
		return "[resource: " + c.URI + "]"
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			return "[resource: " + c.Resource.URI + "]"
		}
		return "[resource]"
	default:
		return fmt.Sprintf("[%T]", c)
	}
}

// shorten cuts s to at most n bytes (at a rune), marking the cut.
func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
