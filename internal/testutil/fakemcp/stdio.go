package fakemcp

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ModeEnv is the environment variable that makes ServeIfAsked serve; its
// value StdioMode serves NewServer on stdin and stdout.
const (
	ModeEnv   = "HARNEST_FAKE_MCP"
	StdioMode = "stdio"
)

// ServeIfAsked serves NewServer over stdio and exits the process when
// HARNEST_FAKE_MCP=stdio is set; otherwise it returns at once. Call it
// first in a TestMain, so that the test binary is its own MCP server:
//
//	func TestMain(m *testing.M) {
//		fakemcp.ServeIfAsked()
//		os.Exit(m.Run())
//	}
func ServeIfAsked() {
	if os.Getenv(ModeEnv) != StdioMode {
		return
	}
	// A line on stderr, so that tests see the client pass it to its log.
	fmt.Fprintln(os.Stderr, "fakemcp: serving on stdio")
	err := NewServer().Run(context.Background(), &mcp.StdioTransport{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemcp:", err)
	}
	// The client closing stdin is the normal end of a stdio server.
	os.Exit(0)
}

// StdioCommand is the command (the running test binary) and the
// environment that start it as a stdio MCP server, for a config.MCPServer.
// The test binary must call ServeIfAsked first in its TestMain.
func StdioCommand() (command string, env map[string]string) {
	exe, err := os.Executable()
	if err != nil {
		panic(fmt.Sprintf("fakemcp: cannot find the test binary: %v", err))
	}
	return exe, map[string]string{ModeEnv: StdioMode}
}
