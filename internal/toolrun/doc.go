// Package toolrun runs the tools an agent may call: server tools that run
// a local program (exec), the tools of MCP servers (stdio or Streamable
// HTTP, through the official Go SDK), and client tools, which the client
// runs and the caller only lists. Two parts of harnest use it, so it
// belongs to neither: the model backend's agent loop (backend.Model) and
// the relay's tools at home, which outside agents call (relay.ToolSet).
// It imports only config and internal/program.
//
// Open builds a Set from the agent's config; Tools lists what to offer the
// model, Validate checks a call's arguments against the tool's JSON
// Schema, and Call runs it. Call never fails for what the model can act
// on: an unknown tool, bad arguments, a failed program, a timeout or an
// MCP server that is down are a Result with IsError and a one-sentence
// JSON string as its Output. It returns an error only when its context is
// done.
//
// MCP servers are connected in the background: Open waits a while for
// them (Options.StartWait), a server that cannot start or answer is logged
// once and retried with backoff, its tools are offered once it answers,
// and Ready reports every server that does not. Close stops every session
// and process.
package toolrun
