// Package backend holds the agents harnest can serve out of the box.
//
// An agent folder's config.yaml names exactly one backend under
// spec.backend, and New turns that section into a runtime.Agent:
//
//   - echo: a deterministic built-in agent that repeats the input back. Its
//     options (thinking, toolCall, delayMs, fail) make it a test double for
//     every client.
//   - exec: runs a local program once per turn, writes the turn's input to
//     its stdin and streams its stdout back as text deltas.
package backend
