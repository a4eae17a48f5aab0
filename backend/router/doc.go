// Package router is the harness router (spec.backend.router): one agent
// in front of several named harnesses (echo, exec, model, a2a, relay).
// Each turn is routed to the chosen harness (a name, auto by skills, or a
// model-router tier), within the plan's and the owner's daily caps, the
// harness's cost ceiling (each turn's expected cost is held against it
// before the harness is asked and settled with the real cost after, so
// concurrent turns on every replica stay within it; internal/budget),
// the owner's pauses and the harness's breaker;
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
// visitors are enabled with a daily cap (this setting governs the relay
// harnesses' own visitor rule); their message is redacted before any
// harness sees it and the answer is screened before it is served. A
// harness that refuses a turn (harness_visitors_off, harness_refused) is
// not a failure: its breaker hears nothing and a visitor's turn is given
// back to the visitors' cap.
//
// The router keeps no state of its own: counters, breakers, the owner's
// overrides and receipts are store.Router operations, shared by every
// replica. Build it with New from harnesses built by the caller.
package router
