// Package fakemcp holds MCP servers for tests, built with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk), so that harnest's MCP client
// is tested against the real protocol on loopback only.
//
//   - NewServer is the server with the tools tests call: add, add_tool,
//     echo, fail, mixed, pid and slow.
//   - StartHTTP (and StartStatelessHTTP, for protocol 2026-07-28) serves it
//     over Streamable HTTP on 127.0.0.1 and records the headers of every
//     request; Stop and Restart (on the same address) play a server that
//     dies and comes back; AddTool makes clients get
//     notifications/tools/list_changed.
//   - ServeIfAsked, called first in a TestMain, turns the test binary into a
//     stdio MCP server when HARNEST_FAKE_MCP=stdio; StdioCommand gives the
//     command and environment that start it that way.
package fakemcp
