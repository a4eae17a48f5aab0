// Package a2a serves an agent over A2A (Agent2Agent), spec 1.0 and 0.3, on
// the bindings its agent-card.yaml declares: JSON-RPC and HTTP+JSON, each
// interface mounted at its URL's path.
//
// It only translates. A task is one harnest response (the task ID is the
// response ID, the contextId the session); the runtime's portable event
// stream becomes A2A task updates (mapping.go), and tasks are kept in the
// store per owner (tasks.go), so that any replica can get, list, cancel,
// continue and follow them. A blocking send that starts no task and
// completes answers with a Message; streaming, returnImmediately (0.3:
// blocking false) and continuing a task make a Task. Approvals and client
// tools are input-required tasks, answered by a message on the same task.
//
// The served card (Card, CardHandler) carries the 1.0 fields and what 0.3
// clients read, with the alive extension checked (alive.go); the extended
// card (agent-card.extended.yaml, extcard.go) goes to authenticated callers.
// Requests may use proto field names as well as camelCase (protonames.go).
//
// Use:
//
//	srv, err := a2a.New(a2a.Options{Service: svc, Store: st, Card: folder.Card})
//	srv.Register(mux)                                     // every declared interface
//	mux.Handle("GET /.well-known/agent-card.json", srv.CardHandler())
package a2a
