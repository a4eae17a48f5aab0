// Package a2aremote is the a2a backend (spec.backend.a2a): a remote A2A
// agent answers the turns, reached through its agent card with the a2a-go
// v2 client (A2A 1.0 over JSON-RPC and HTTP+JSON, and 0.3 through its
// compat transports).
//
// The card is read from the configured URL (the URL itself when it names a
// .json document, else its path joined with /.well-known/agent-card.json)
// and kept for a few minutes. The interface is the card's first usable
// one, A2A 1.0 before 0.3, JSON-RPC or HTTP+JSON.
//
// Each turn is one user message. When the card says the agent streams, the
// answer streams: artifact text as text deltas, status messages as agent
// activity, data parts as decision results; otherwise the message is sent
// and the task awaited (polled while it is not final). The remote
// contextId of the session, and the remote task waiting for input, live in
// the session state under StateKey, so a conversation stays one remote
// context and an input-required turn (the remote question is its answer)
// is continued by the next turn of the session. auth-required, rejected and
// failed tasks end the turn with the receipt codes remote_auth_required,
// remote_rejected and remote_failed; a remote that cannot be reached, or
// that the address guard refuses, with remote_unavailable. A turn that
// ends first (cancelled, disconnected, past its deadline) cancels its
// remote task.
//
// The remote task is the turn's resume point (resume.go): recorded in the
// turn's journal once the remote names a task that is not final, so that
// a turn run again after its replica was lost or handed it off re-attaches
// to that task (subscribed when the agent streams, read until final)
// instead of sending the message twice; such an agent reruns on replica
// loss by default. A turn that goes on elsewhere leaves its task running.
//
// Every request goes through internal/netguard: https for public hosts,
// plain http only to a loopback host listed in allowHosts, private or
// loopback addresses only when listed; redirects are checked again and
// every answer is bounded in size. The token goes as Authorization: Bearer
// and never into a log line or an error.
//
// Use:
//
//	agent, err := a2aremote.New(a2aremote.Options{Config: *folder.Config.Spec.Backend.A2A, Logger: logger})
//	defer agent.Close()
//	err = agent.Run(ctx, turn, emit)
package a2aremote
