// Package backend holds the agents harnest can serve out of the box.
//
// An agent folder's config.yaml names exactly one backend under
// spec.backend, and New turns that section into a runtime.Agent:
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
package backend
