package fakemcp

import (
	"context"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddArgs are the arguments of the add tool.
type AddArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

// AddResult is the structured result of the add tool.
type AddResult struct {
	Sum float64 `json:"sum"`
}

// EchoArgs are the arguments of the echo tool (and of tools added with
// HTTP.AddTool).
type EchoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// SlowArgs are the arguments of the slow tool.
type SlowArgs struct {
	MS int `json:"ms" jsonschema:"how many milliseconds to sleep"`
}

// PIDResult is the structured result of the pid tool.
type PIDResult struct {
	PID int `json:"pid"`
}

// AddToolArgs are the arguments of the add_tool tool.
type AddToolArgs struct {
	Name string `json:"name" jsonschema:"the name of the echo-like tool to add"`
}

// ToolNames are the tools of NewServer, in the order the server lists them
// (the SDK lists tools sorted by name).
var ToolNames = []string{"add", "add_tool", "echo", "fail", "mixed", "pid", "slow"}

// NewServer returns an MCP server with these tools:
//
//   - add {a, b}: the structured result {sum}.
//   - echo {text}: the text as text content.
//   - fail: an isError result whose text is "it failed".
//   - slow {ms}: sleeps ms milliseconds (or until the call is cancelled),
//     then answers "slept".
//   - mixed: two text contents ("one", "two") and a PNG image.
//   - pid: the structured result {pid}: the serving process's ID, so that a
//     test can kill a stdio server.
//   - add_tool {name}: adds an echo-like tool of that name, so that clients
//     get notifications/tools/list_changed (also over stdio).
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fakemcp", Version: "v1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers."}, add)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the text."}, echo)
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."}, fail)
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleeps, then answers."}, slow)
	mcp.AddTool(s, &mcp.Tool{Name: "mixed", Description: "Answers with texts and an image."}, mixed)
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "The server's process ID."}, pid)
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Adds an echo-like tool."},
		func(_ context.Context, _ *mcp.CallToolRequest, in AddToolArgs) (*mcp.CallToolResult, any, error) {
			addEchoTool(s, in.Name)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added " + in.Name}}}, nil, nil
		})
	return s
}

// addEchoTool adds a tool like echo under name.
func addEchoTool(s *mcp.Server, name string) {
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Echoes the text."}, echo)
}

func add(_ context.Context, _ *mcp.CallToolRequest, in AddArgs) (*mcp.CallToolResult, AddResult, error) {
	return nil, AddResult{Sum: in.A + in.B}, nil
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in EchoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

func fail(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: "it failed"}},
	}, nil, nil
}

func slow(ctx context.Context, _ *mcp.CallToolRequest, in SlowArgs) (*mcp.CallToolResult, any, error) {
	timer := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
}

// onePixelPNG is a 1×1 transparent PNG.
var onePixelPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d,
	0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00,
	0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49,
	0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
}

func mixed(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "one"},
		&mcp.TextContent{Text: "two"},
		&mcp.ImageContent{MIMEType: "image/png", Data: onePixelPNG},
	}}, nil, nil
}

func pid(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, PIDResult, error) {
	return nil, PIDResult{PID: os.Getpid()}, nil
}
