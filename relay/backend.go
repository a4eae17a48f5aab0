package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
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
// (ErrAgentUnavailable, ErrAgentRefused, ErrRateLimited or ErrInvalid), so that e's
// code and sentence reach the receipt and the caller.
func turnFailure(emit runtime.Emit, e *runtime.Error) error {
	activity := ActivityFailed
	switch {
	case errors.Is(e, runtime.ErrAgentRefused), errors.Is(e, runtime.ErrInvalid):
		activity = ActivityRefused
	case errors.Is(e, runtime.ErrRateLimited):
		activity = ActivityRateLimited
	}
	_ = emit(runtime.Event{Type: runtime.EventAgentActivity, Agent: "relay", Activity: activity, Code: e.Code})
	return e
}

// storeFailure is a turn that failed because the store did not answer:
// the runtime records it as store_unavailable (HTTP 503), and the caller
// may retry. The store's own error stays out of the receipt.
func storeFailure(err error) error {
	return fmt.Errorf("relay: %w: %w", err,
		runtime.Errorf(runtime.ErrUnavailable, runtime.CodeStoreUnavailable, "The state store is unavailable; retry shortly"))
}

// unavailable is a transient turn failure (HTTP 503): the caller may try
// again later.
func unavailable(code, format string, args ...any) *runtime.Error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, code, format, args...)
}

// invalidQuestion is a question the outside agent cannot take (blank, or
// too long): bad input (runtime.ErrInvalid, HTTP 400), whose code and
// sentence the runtime hands to the caller. Asking again does not help.
func invalidQuestion(format string, args ...any) *runtime.Error {
	return runtime.Errorf(runtime.ErrInvalid, CodeQuestion, format, args...)
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
		return turnFailure(emit, invalidQuestion("The outside agent answers text questions only; send the question as text"))
	}
	if utf8.RuneCountInString(question) > MaxQuestionChars {
		return turnFailure(emit, invalidQuestion("The question is longer than %d characters; shorten it", MaxQuestionChars))
	}
	if owner == "" {
		// Visitors are allowed, but no owner is configured to pair anyone.
		return turnFailure(emit, unavailable(CodeNoParticipant, "No outside agent is connected"))
	}
	if visitor {
		// One bucket per UTC day (the bucket's window starts at midnight
		// UTC), so the wait is the time until the next UTC day.
		b := store.RelayBucket{Owner: owner, Name: "visitors", Subject: "turns", Limit: a.visitorCap(), Window: 24 * time.Hour}
		ok, wait, err := r.st.TakeRelayBucket(ctx, b, r.now())
		if err != nil {
			return storeFailure(err)
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
		return storeFailure(err)
	}
	now := r.now()
	item := store.RelayItem{ID: newUUID(), Participant: p.ID, Text: question, AskedAt: now, DeadlineAt: now.Add(a.deadline())}
	err = r.st.EnqueueRelayItem(ctx, owner, item, MaxPending)
	switch {
	case errors.Is(err, store.ErrParticipantPaused):
		return turnFailure(emit, unavailable(CodePaused, "The outside agent %q is paused by its owner", p.Name))
	case errors.Is(err, store.ErrParticipantGone):
		return turnFailure(emit, unavailable(CodeNoParticipant, "No outside agent is connected"))
	case errors.Is(err, store.ErrInboxFull):
		return turnFailure(emit, unavailable(CodeBusy, "The outside agent %q already has %d questions waiting", p.Name, MaxPending))
	case err != nil:
		return storeFailure(err)
	}
	reply, err := a.await(ctx, p, item)
	if err != nil {
		// The turn is over without an answer: take the item back.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		_ = r.st.CancelRelayItem(cctx, owner, p.ID, item.ID)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if e, ok := err.(*runtime.Error); ok {
			return turnFailure(emit, e)
		}
		return storeFailure(err)
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
func (a *relayAgent) pick(ctx context.Context, owner string) (store.RelayParticipant, error) {
	r := (*Relay)(a)
	ps, err := r.st.ListParticipants(ctx, owner, r.now())
	if err != nil {
		return store.RelayParticipant{}, err
	}
	var paused *store.RelayParticipant
	for i := range ps {
		p := ps[i]
		if a.backend.Name != "" && p.Name != a.backend.Name || a.backend.Kind != "" && p.Kind != a.backend.Kind {
			continue
		}
		if p.State == store.RelayActive {
			return p, nil
		}
		if paused == nil {
			paused = &ps[i]
		}
	}
	if paused != nil {
		return store.RelayParticipant{}, unavailable(CodePaused, "The outside agent %q is paused by its owner", paused.Name)
	}
	if a.backend.Name != "" || a.backend.Kind != "" {
		return store.RelayParticipant{}, unavailable(CodeNoParticipant,
			"No outside agent named %q of kind %q is connected", a.backend.Name, a.backend.Kind)
	}
	return store.RelayParticipant{}, unavailable(CodeNoParticipant, "No outside agent is connected")
}

// await waits for the item's reply, from any replica, until its deadline;
// a participant paused or disconnected meanwhile ends the wait at once. It
// reads the store when it is woken (a reply, a cancel, a pause, a
// disconnect) and at the deadline; with a test clock also every r.tick.
func (a *relayAgent) await(ctx context.Context, p store.RelayParticipant, item store.RelayItem) (string, error) {
	r := (*Relay)(a)
	replied, stopItem, err := r.st.ListenRelayItem(ctx, p.Owner, item.ID)
	if err != nil {
		return "", err
	}
	defer stopItem()
	changed, stopInbox, err := r.st.ListenRelayInbox(ctx, p.Owner, p.ID)
	if err != nil {
		return "", err
	}
	defer stopInbox()
	var tick <-chan time.Time
	if r.tick > 0 {
		t := time.NewTicker(r.tick)
		defer t.Stop()
		tick = t.C
	}
	for {
		it, ok, err := r.st.GetRelayItem(ctx, p.Owner, item.ID)
		if err != nil {
			return "", err
		}
		if ok && it.State == store.RelayItemAnswered {
			return it.Reply, nil
		}
		now := r.now()
		if !ok || it.State == store.RelayItemCancelled || !now.Before(item.DeadlineAt) {
			return "", unavailable(CodeDeadline, "The outside agent %q did not answer within %s", p.Name, a.deadline())
		}
		cur, live, err := r.st.GetParticipant(ctx, p.Owner, p.ID, now)
		if err != nil {
			return "", err
		}
		if !live {
			return "", unavailable(CodeNoParticipant, "The outside agent %q disconnected", p.Name)
		}
		if cur.State == store.RelayPaused {
			return "", unavailable(CodePaused, "The outside agent %q was paused by its owner", p.Name)
		}
		timer := time.NewTimer(max(item.DeadlineAt.Sub(now), time.Millisecond))
		select {
		case <-ctx.Done():
			timer.Stop()
			return "", ctx.Err()
		case <-replied:
		case <-changed:
		case <-tick:
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
