// Package mcpapi serves the agent as an MCP server over Streamable HTTP at
// /mcp (server.mcp): one tool named after the agent runs a turn.
package mcpapi
