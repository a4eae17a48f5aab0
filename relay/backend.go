package relay

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harnest/harnest/runtime"
)

// relayAgent is the relay backend: a turn becomes an inbox item for a
// participant, and its reply is the answer.
type relayAgent Relay

var _ runtime.Agent = (*relayAgent)(nil)

// Receipt error codes of the relay backend.
const (
	CodeOwnerOnly     = "relay_owner_only"
	CodeVisitorCap    = "relay_visitor_cap"
	CodeNoParticipant = "relay_no_participant"
	CodePaused        = "relay_participant_paused"
	CodeBusy          = "relay_participant_busy"
	CodeDeadline      = "relay_deadline_expired"
	CodeQuestion      = "relay_invalid_question"
)

// Activities of the relay backend's agent_activity event when a turn ends
// without an answer; its code is the receipt's error code.
const (
	// ActivityFailed: the outside agent could not take or answer the turn
	// for now (no participant, paused, busy, deadline); trying later may
	// work (ErrAgentUnavailable, HTTP 503).
	ActivityFailed = "relay_failed"
	// ActivityRefused: the outside agent will not answer this caller
	// (ErrAgentRefused, HTTP 404); retrying does not help.
	ActivityRefused = "relay_refused"
	// ActivityRateLimited: the visitors' daily cap is spent
	// (ErrRateLimited, HTTP 429 with Retry-After).
	ActivityRateLimited = "relay_rate_limited"
)

// turnFailure ends a turn without an answer: it names the failure in an
// agent_activity event and returns e, whose kind the runtime passes on
// (ErrAgentUnavailable, ErrAgentRefused or ErrRateLimited), so that e's
// code and sentence reach the receipt and the caller.
func turnFailure(emit runtime.Emit, e *runtime.Error) error {
	activity := ActivityFailed
	switch {
	case errors.Is(e, runtime.ErrAgentRefused):
		activity = ActivityRefused
	case errors.Is(e, runtime.ErrRateLimited):
		activity = ActivityRateLimited
	}
	_ = emit(runtime.Event{Type: runtime.EventAgentActivity, Agent: "relay", Activity: activity, Code: e.Code})
	return e
}

// unavailable is a transient turn failure (HTTP 503): the caller may try
// again later.
func unavailable(code, format string, args ...any) *runtime.Error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, code, format, args...)
}

func (a *relayAgent) deadline() time.Duration {
	d := time.Duration(a.backend.DeadlineSeconds) * time.Second
	if d <= 0 || d > DefaultDeadline {
		return DefaultDeadline
	}
	return d
}

func (a *relayAgent) visitorCap() int {
	if a.backend.VisitorDailyCap > 0 {
		return a.backend.VisitorDailyCap
	}
	return DefaultVisitorDailyCap
}

// Run hands the turn to a participant and waits for its reply. The owner's
// turn goes to the owner's own participants; a visitor's turn (with
// allowVisitors) to those of the agent's first owner (Options.FirstOwner).
func (a *relayAgent) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	r := (*Relay)(a)
	owner := turn.UserID
	visitor := !r.IsOwner(owner)
	if visitor {
		if !a.backend.AllowVisitors {
			return turnFailure(emit, runtime.Errorf(runtime.ErrAgentRefused, CodeOwnerOnly,
				"This agent answers its owner only; visitors' turns do not reach its outside agent"))
		}
		owner = r.visitorOwner()
	}
	question := turn.Input
	if strings.TrimSpace(question) == "" {
		return turnFailure(emit, unavailable(CodeQuestion, "The outside agent answers text questions only"))
	}
	if utf8.RuneCountInString(question) > MaxQuestionChars {
		return turnFailure(emit, unavailable(CodeQuestion, "The question is longer than %d characters", MaxQuestionChars))
	}
	if owner == "" {
		// Visitors are allowed, but no owner is configured to pair anyone.
		return turnFailure(emit, unavailable(CodeNoParticipant, "No outside agent is connected"))
	}
	if visitor {
		// One bucket per UTC day (the bucket's window starts at midnight
		// UTC), so the wait is the time until the next UTC day.
		ok, wait, err := r.st.take(ctx, owner, "visitors", "turns", a.visitorCap(), 24*time.Hour, r.now())
		if err != nil {
			return err
		}
		if !ok {
			e := runtime.Errorf(runtime.ErrRateLimited, CodeVisitorCap,
				"The outside agent has answered its daily cap of %d visitor turns; try again after midnight UTC", a.visitorCap())
			e.RetryAfter = wait
			return turnFailure(emit, e)
		}
	}

	p, err := a.pick(ctx, owner)
	if err != nil {
		if e, ok := err.(*runtime.Error); ok {
			return turnFailure(emit, e)
		}
		return err
	}
	now := r.now()
	item, err := r.st.enqueue(ctx, owner, p.ID, question, now, now.Add(a.deadline()), MaxPending)
	switch {
	case err == errPaused:
		return turnFailure(emit, unavailable(CodePaused, "The outside agent %q is paused by its owner", p.Name))
	case err == errGone:
		return turnFailure(emit, unavailable(CodeNoParticipant, "No outside agent is connected"))
	case err == errFull:
		return turnFailure(emit, unavailable(CodeBusy, "The outside agent %q already has %d questions waiting", p.Name, MaxPending))
	case err != nil:
		return err
	}
	reply, err := a.await(ctx, p, item)
	if err != nil {
		// The turn is over without an answer: take the item back.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		_ = r.st.cancel(cctx, owner, p.ID, item.RelayID)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if e, ok := err.(*runtime.Error); ok {
			return turnFailure(emit, e)
		}
		return err
	}
	for _, d := range splitDeltas(reply) {
		if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: d}); err != nil {
			return err
		}
	}
	return nil
}

// pick chooses, among owner's participants, the configured one (by name
// and kind) or any active one; a match that is only paused fails as
// paused. Another owner's participants are never considered.
func (a *relayAgent) pick(ctx context.Context, owner string) (Participant, error) {
	r := (*Relay)(a)
	ps, err := r.st.participants(ctx, owner, r.now())
	if err != nil {
		return Participant{}, err
	}
	var paused *Participant
	for i := range ps {
		p := ps[i]
		if a.backend.Name != "" && p.Name != a.backend.Name || a.backend.Kind != "" && p.Kind != a.backend.Kind {
			continue
		}
		if p.State == StateActive {
			return p, nil
		}
		if paused == nil {
			paused = &ps[i]
		}
	}
	if paused != nil {
		return Participant{}, unavailable(CodePaused, "The outside agent %q is paused by its owner", paused.Name)
	}
	if a.backend.Name != "" || a.backend.Kind != "" {
		return Participant{}, unavailable(CodeNoParticipant,
			"No outside agent named %q of kind %q is connected", a.backend.Name, a.backend.Kind)
	}
	return Participant{}, unavailable(CodeNoParticipant, "No outside agent is connected")
}

// await waits for the item's reply, from any replica, until its deadline;
// a participant paused or disconnected meanwhile ends the wait at once.
func (a *relayAgent) await(ctx context.Context, p Participant, item Item) (string, error) {
	r := (*Relay)(a)
	replied, done1 := r.waiters.add("r:" + item.RelayID)
	defer done1()
	changed, done2 := r.waiters.add("p:" + p.ID)
	defer done2()
	tick := time.NewTicker(2 * time.Second) // a safety net for a lost wake-up; also notices expiry on a test clock
	defer tick.Stop()
	for {
		it, ok, err := r.st.item(ctx, p.Owner, item.RelayID)
		if err != nil {
			return "", err
		}
		if ok && it.State == itemAnswered {
			return it.Reply, nil
		}
		now := r.now()
		if !ok || it.State == itemCancelled || !now.Before(item.DeadlineAt) {
			return "", unavailable(CodeDeadline, "The outside agent %q did not answer within %s", p.Name, a.deadline())
		}
		cur, live, err := r.st.participant(ctx, p.Owner, p.ID, now)
		if err != nil {
			return "", err
		}
		if !live {
			return "", unavailable(CodeNoParticipant, "The outside agent %q disconnected", p.Name)
		}
		if cur.State == StatePaused {
			return "", unavailable(CodePaused, "The outside agent %q was paused by its owner", p.Name)
		}
		wait := time.Until(item.DeadlineAt)
		if d := item.DeadlineAt.Sub(now); d < wait {
			wait = d
		}
		timer := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-ctx.Done():
			timer.Stop()
			return "", ctx.Err()
		case <-replied:
		case <-changed:
		case <-tick.C:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// splitDeltas streams a reply as a few deltas, split after spaces.
func splitDeltas(s string) []string {
	const n = 4
	if len(s) < 32 {
		return []string{s}
	}
	var out []string
	size := len(s)/n + 1
	for len(s) > 0 {
		if len(s) <= size {
			out = append(out, s)
			break
		}
		cut := strings.IndexByte(s[size:], ' ')
		if cut < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:size+cut+1])
		s = s[size+cut+1:]
	}
	return out
}
