// Package agent is the relay backend (spec.backend.relay, a router's relay
// harness): a turn becomes an inbox item for one of an owner's
// participants, and the reply the outside agent posts (through the relay's
// door, on any replica) is the answer. It reads and writes the relay's
// state through Store, the part of store.Relay it calls, and knows nothing
// of HTTP: the door (package relay) builds an Agent per backend section
// with New. The inbox item is the turn's resume point (resume.go): a turn
// run again on another replica waits for the reply to the same item.
package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Limits of the relay backend, as the outside agents' guide states them
// (package relay lists them with the door's).
const (
	MaxPending       = 5
	MaxQuestionChars = 4000
	DefaultDeadline  = 60 * time.Second
	// DefaultVisitorDailyCap applies when allowVisitors is set without a
	// cap.
	DefaultVisitorDailyCap = 50
)

// Store is the part of the relay's state a turn uses: the owner's
// participants, the inbox item it enqueues, waits on and takes back, and
// the visitors' bucket.
type Store interface {
	ListParticipants(ctx context.Context, owner string, now time.Time) ([]store.RelayParticipant, error)
	GetParticipant(ctx context.Context, owner, id string, now time.Time) (store.RelayParticipant, bool, error)
	TakeRelayBucket(ctx context.Context, b store.RelayBucket, now time.Time) (ok bool, retryAfter time.Duration, err error)
	EnqueueRelayItem(ctx context.Context, owner string, it store.RelayItem, maxPending int) error
	GetRelayItem(ctx context.Context, owner, id string) (store.RelayItem, bool, error)
	CancelRelayItem(ctx context.Context, owner, participant, id string) error
	ListenRelayInbox(ctx context.Context, owner, participant string) (signal <-chan struct{}, stop func(), err error)
	ListenRelayItem(ctx context.Context, owner, id string) (signal <-chan struct{}, stop func(), err error)
}

// Options configure an Agent.
type Options struct {
	// Store holds the relay's state.
	Store Store
	// Section is the backend's section (spec.backend.relay, or a router's
	// relay harness): which participant answers, the deadline, visitors.
	Section config.RelayBackend
	// IsOwner reports whether a user is the agent's owner (the relay's
	// Relay.IsOwner); nil: nobody is, every turn is a visitor's.
	IsOwner func(user string) bool
	// VisitorOwner is the owner whose participants answer visitors' turns
	// (the first owner); "" for nobody.
	VisitorOwner string
	// Now is the clock.
	Now func() time.Time
	// Tick is how often a waiting turn re-reads the store: 0 (never, it
	// is woken), or a period with a test clock that may jump.
	Tick time.Duration
	// Ready reports whether what the outside agent calls back (tools at
	// home) is ready; nil: always ready.
	Ready func(ctx context.Context) error
}

// Agent is the relay backend: a turn becomes an inbox item for a
// participant, and its reply is the answer.
type Agent struct {
	st      Store
	backend config.RelayBackend
	isOwner func(string) bool
	visitor string
	now     func() time.Time
	tick    time.Duration
	ready   func(context.Context) error
}

var (
	_ runtime.Agent         = (*Agent)(nil)
	_ runtime.ReadyReporter = (*Agent)(nil)
)

// New builds the relay backend of one section.
func New(o Options) *Agent {
	a := &Agent{st: o.Store, backend: o.Section, isOwner: o.IsOwner, visitor: o.VisitorOwner, now: o.Now, tick: o.Tick, ready: o.Ready}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// Ready reports whether the relay backend can serve: with tools at home
// on, the tool set must be ready too (its MCP servers listed), so that
// /readyz says so while one does not answer.
func (a *Agent) Ready(ctx context.Context) error {
	if a.ready == nil {
		return nil
	}
	return a.ready(ctx)
}

// Connected reports whether one of owner's participants that this
// section would pick is paired, its session live, and not paused. An
// error is the store's.
func (a *Agent) Connected(ctx context.Context, owner string) (bool, error) {
	_, err := a.pick(ctx, owner)
	var unavailable *runtime.Error
	if errors.As(err, &unavailable) {
		return false, nil // nobody paired, or paused
	}
	return err == nil, err
}

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

func (a *Agent) deadline() time.Duration {
	d := time.Duration(a.backend.DeadlineSeconds) * time.Second
	if d <= 0 || d > DefaultDeadline {
		return DefaultDeadline
	}
	return d
}

func (a *Agent) visitorCap() int {
	if a.backend.VisitorDailyCap > 0 {
		return a.backend.VisitorDailyCap
	}
	return DefaultVisitorDailyCap
}

// Run hands the turn to a participant and waits for its reply. The owner's
// turn goes to the owner's own participants; a visitor's turn (with
// allowVisitors) to those of the agent's first owner (Options.FirstOwner).
func (a *Agent) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	if p, item, ok := recallItem(turn); ok {
		return a.answer(ctx, p, item, emit) // an earlier attempt asked (resume.go)
	}
	owner := turn.UserID
	visitor := a.isOwner == nil || !a.isOwner(owner)
	if visitor {
		if !a.backend.AllowVisitors {
			return turnFailure(emit, runtime.Errorf(runtime.ErrAgentRefused, CodeOwnerOnly,
				"This agent answers its owner only; visitors' turns do not reach its outside agent"))
		}
		owner = a.visitor
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
		ok, wait, err := a.st.TakeRelayBucket(ctx, b, a.now())
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

	p, item, err := a.enqueue(ctx, owner, question, emit)
	if err != nil {
		return err
	}
	if err := recordItem(ctx, turn, p, item); err != nil {
		return a.takeBack(ctx, p, item, err)
	}
	return a.answer(ctx, p, item, emit)
}

// enqueue picks owner's participant and puts the question in its inbox.
// An error is the turn's.
func (a *Agent) enqueue(ctx context.Context, owner, question string, emit runtime.Emit) (store.RelayParticipant, store.RelayItem, error) {
	p, err := a.pick(ctx, owner)
	if err != nil {
		if e, ok := err.(*runtime.Error); ok {
			return p, store.RelayItem{}, turnFailure(emit, e)
		}
		return p, store.RelayItem{}, storeFailure(err)
	}
	now := a.now()
	item := store.RelayItem{ID: uuid.NewString(), Participant: p.ID, Text: question, AskedAt: now, DeadlineAt: now.Add(a.deadline())}
	err = a.st.EnqueueRelayItem(ctx, owner, item, MaxPending)
	switch {
	case errors.Is(err, store.ErrParticipantPaused):
		return p, item, turnFailure(emit, unavailable(CodePaused, "The outside agent %q is paused by its owner", p.Name))
	case errors.Is(err, store.ErrParticipantGone):
		return p, item, turnFailure(emit, unavailable(CodeNoParticipant, "No outside agent is connected"))
	case errors.Is(err, store.ErrInboxFull):
		return p, item, turnFailure(emit, unavailable(CodeBusy, "The outside agent %q already has %d questions waiting", p.Name, MaxPending))
	case err != nil:
		return p, item, storeFailure(err)
	}
	return p, item, nil
}

// answer waits for the item's reply and streams it.
func (a *Agent) answer(ctx context.Context, p store.RelayParticipant, item store.RelayItem, emit runtime.Emit) error {
	reply, err := a.await(ctx, p, item)
	if err != nil {
		if e, ok := err.(*runtime.Error); ok && ctx.Err() == nil {
			_ = a.takeBack(ctx, p, item, nil)
			return turnFailure(emit, e)
		}
		return a.takeBack(ctx, p, item, err)
	}
	for _, d := range splitDeltas(reply) {
		if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: d}); err != nil {
			return err
		}
	}
	return nil
}

// takeBack ends a turn that is over without an answer: it takes the item
// back from the inbox, unless the turn goes on on another replica
// (runtime.ContinuedElsewhere: the next attempt waits for the same reply),
// and returns the turn's error for err.
func (a *Agent) takeBack(ctx context.Context, p store.RelayParticipant, item store.RelayItem, err error) error {
	if runtime.ContinuedElsewhere(ctx) {
		return ctx.Err()
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	_ = a.st.CancelRelayItem(cctx, p.Owner, p.ID, item.ID)
	cancel()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if e, ok := err.(*runtime.Error); ok {
		return e
	}
	return storeFailure(err)
}

// pick chooses, among owner's participants, the configured one (by name
// and kind) or any active one; a match that is only paused fails as
// paused. Another owner's participants are never considered.
func (a *Agent) pick(ctx context.Context, owner string) (store.RelayParticipant, error) {
	ps, err := a.st.ListParticipants(ctx, owner, a.now())
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
// disconnect) and at the deadline; with a test clock also every a.tick.
func (a *Agent) await(ctx context.Context, p store.RelayParticipant, item store.RelayItem) (string, error) {
	replied, stopItem, err := a.st.ListenRelayItem(ctx, p.Owner, item.ID)
	if err != nil {
		return "", err
	}
	defer stopItem()
	changed, stopInbox, err := a.st.ListenRelayInbox(ctx, p.Owner, p.ID)
	if err != nil {
		return "", err
	}
	defer stopInbox()
	var tick <-chan time.Time
	if a.tick > 0 {
		t := time.NewTicker(a.tick)
		defer t.Stop()
		tick = t.C
	}
	for {
		it, ok, err := a.st.GetRelayItem(ctx, p.Owner, item.ID)
		if err != nil {
			return "", err
		}
		if ok && it.State == store.RelayItemAnswered {
			return it.Reply, nil
		}
		now := a.now()
		if !ok || it.State == store.RelayItemCancelled || !now.Before(item.DeadlineAt) {
			return "", unavailable(CodeDeadline, "The outside agent %q did not answer within %s", p.Name, a.deadline())
		}
		cur, live, err := a.st.GetParticipant(ctx, p.Owner, p.ID, now)
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
