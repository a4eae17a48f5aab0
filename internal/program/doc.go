// Package program holds what every place that runs a local program shares:
// the minimal environment it gets (MinimalEnv) and how its name is found
// (Resolve). The exec backend, exec tools and stdio MCP servers use it, so
// that a program never sees the server's other environment variables,
// which may hold secrets.
package program
