// Package backend holds the agents harnest can serve out of the box.
//
// An agent folder's config.yaml names exactly one backend under
// spec.backend, and ForFolder (New, for the backends that need only their
// section) turns it into a runtime.Agent:
//
//   - echo: a deterministic built-in agent that repeats the input back. Its
//     options (thinking, toolCall, delayMs, fail, approval, clientTool) make it a test double for
//     every client.
//   - exec: runs a local program. In mode turn (the default) it runs once
//     per turn, gets the turn's input on stdin and its stdout is streamed
//     back as text deltas. In mode worker a pool of long-lived processes
//     speaks the JSON lines protocol of docs/worker-protocol.md, which
//     carries every kind of event, approvals and client tools (Workers;
//     Close it when done).
//   - model: an agent loop over an OpenAI-compatible Chat Completions
//     endpoint (Model, built by ForFolder from the whole spec): the
//     instructions, the transcript as history, and tools — exec tools, MCP
//     servers and client tools (internal/toolrun) — run between model calls
//     (backend/chat), with approvals and client tools as suspensions.
//   - a2a: a remote A2A agent (backend/a2aremote).
//   - router: several named harnesses (each one of echo, exec, model, a2a
//     or relay) behind one agent, with choices, fallbacks, caps and
//     text-free receipts (backend/router). ForFolder builds it with every
//     harness through the builder of its kind; it needs the store (Parts).
//   - relay: outside agents that pair with the server and answer from an
//     inbox. Its agent lives in relay/agent, beside the relay's door that
//     owns its participants; ForFolder builds it from Parts.Relay
//     (AgentWith the section), as it does a router's relay harness.
package backend
