// Package router is the harness router (spec.backend.router): one agent
// in front of several named harnesses (echo, exec, model, a2a, relay).
// Each turn is routed to the chosen harness (a name, auto by skills, or a
// model-router tier), within the plan's and the owner's daily caps, the
// harness's cost ceiling, the owner's pauses and the harness's breaker;
// the router waits at most the harness's waitMs for its answer to start
// and falls back (house, next_harness, tell_me, or a ladder ending with a
// person) when it times out, fails or answers nothing. A relay harness
// whose outside agent is not connected is skipped as offline without
// counting as a failure; a reply that comes after the wait is discarded.
// "auto" ties and next_harness follow the declared order of harnesses:. Every routed turn
// leaves one receipt in the store that holds no text: who was chosen, who
// answered, why, the rungs tried, the waits and the cost.
//
// Visitors (users other than the owner) reach relay harnesses only while
// visitors are enabled with a daily cap; their message is redacted before
// any harness sees it and the answer is screened before it is served.
//
// The router keeps no state of its own: counters, breakers, the owner's
// overrides and receipts are store.Router operations, shared by every
// replica. Build it with New from harnesses built by the caller.
package router
