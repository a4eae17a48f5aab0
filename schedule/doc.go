// Package schedule starts turns by themselves: a user's schedules, kept in
// the store (store.Schedules), each a cron expression with a time zone or
// a one-off time, an input, and the session to run in (a new one per fire,
// or a fixed one). It is a door of its own: its routes (routes.go) are
// POST/GET/PATCH/DELETE /schedules, pause, resume, run-now and the history
// of fires (GET /schedules/{id}/fires); its Scheduler (scheduler.go) runs
// on every replica.
//
// Exactly once: every replica's Scheduler looks for due schedules every
// tick and claims each fire in the store by compare-and-set on the
// schedule's next fire time, in the same operation that records the fire
// with the session and response IDs it will use (store.ClaimFire): of any
// number of replicas one claims it. The claimer starts the response as a
// background turn with that response ID and marks the fire started. A
// claimer that dies before marking it leaves the fire pending; once its
// hold lapses another replica takes it (store.TakeFire), finds the
// receipt when the response did start, or starts it: the fire is neither
// lost nor doubled.
//
// Missed fires: a fire found more than missedAfter late (every replica was
// down or paused) follows the policy: skip (no fire; the schedule moves to
// its next time after now) or runOnce (one fire for all that were missed,
// then the next time after now). A fire whose session is busy follows the
// session's busy strategy (the schedule's onBusy, else the agent's
// spec.onBusy): rejected, it is recorded as failed with the reason.
// Results reach the session, the schedule's completion webhook when it
// names one, and (Options.OnFire, which the server wires to the relay) the
// owner's feed as a stage item schedule_fire: once when the fire starts,
// and once with its outcome when the response is over (outcome.go). An
// agent with a typed input contract takes an object as a schedule's
// input, checked against its schema when the schedule is stored
// (input.go). Each replica reads the due
// schedules and the pending fires once a tick (250 ms): two store reads.
package schedule
