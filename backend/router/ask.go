package router

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/harnest/harnest/runtime"
)

// outcome is how asking one harness went.
type outcome struct {
	// reason is "" for a served answer, else why it did not answer.
	reason string
	// err is the harness's error when its answer had already started
	// (committed): the turn fails with it, as it would without the router.
	err error
	// started reports that the answer reached the caller.
	started bool
	// waited is how long the answer took to start (or the wait that ran
	// out).
	waited time.Duration
	usage  runtime.Usage
	// cause is the harness's own error, whatever happened.
	cause error
}

// gate stands between a harness and the caller. It holds the harness's
// events back until its answer starts (its first text, or a suspension
// for an approval or a client tool), so that a harness that times out,
// fails or answers nothing leaves no trace and another can answer. A
// visitor's answer is held back whole, screened and then served.
type gate struct {
	mu        sync.Mutex
	emit      runtime.Emit
	cancel    context.CancelFunc
	holdAll   bool   // a visitor's turn: screen the answer before serving it
	prefix    string // the fallback line, served before the answer
	held      []runtime.Event
	started   bool // the answer reached the caller: no fallback any more
	timedOut  bool
	sawText   bool
	suspended bool
	usage     runtime.Usage
	begin     time.Time
	startedAt time.Time
	textAt    time.Time // the answer's first text, held back or not
}

// errTimedOut is what a harness's emit returns once its wait ran out.
var errTimedOut = errors.New("router: the harness's wait ran out")

// send is the harness's Emit.
func (g *gate) send(ev runtime.Event) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.timedOut {
		return errTimedOut
	}
	if ev.Usage != nil {
		g.usage.InputTokens += ev.Usage.InputTokens
		g.usage.OutputTokens += ev.Usage.OutputTokens
		g.usage.TotalTokens += ev.Usage.TotalTokens
	}
	if ev.Type == runtime.EventTextDelta && ev.Delta != "" && !g.sawText {
		g.sawText, g.textAt = true, time.Now()
	}
	if g.started {
		return g.emit(ev)
	}
	g.held = append(g.held, ev)
	if ev.Type == runtime.EventTextDelta && !g.holdAll {
		return g.startLocked()
	}
	return nil
}

// startLocked serves the held events: the answer has started.
func (g *gate) startLocked() error {
	g.started, g.startedAt = true, time.Now()
	held := g.held
	g.held = nil
	if g.holdAll {
		held = screenEvents(held)
	}
	if g.prefix != "" && g.sawText {
		held = append([]runtime.Event{{Type: runtime.EventTextDelta, Delta: g.prefix + "\n"}}, held...)
	}
	for _, ev := range held {
		if err := g.emit(ev); err != nil {
			return err
		}
	}
	return nil
}

// expire ends the wait unless the answer started. A visitor's answer is
// held back until it is whole, but its text started in time: it is not
// cut off.
func (g *gate) expire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.started && !g.sawText {
		g.timedOut = true
		g.cancel()
	}
}

// suspend serves what is held before the harness asks for an approval or
// a client tool: the turn is the harness's from then on.
func (g *gate) suspend() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.timedOut {
		return errTimedOut
	}
	g.suspended = true
	if !g.started {
		return g.startLocked()
	}
	return nil
}

// ask runs one harness for the turn, within wait (0: no bound), and
// reports how it went. holdAll screens the answer (visitors); prefix is
// the fallback line.
func (t *routed) ask(ctx context.Context, name string, wait time.Duration, prefix string) outcome {
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &gate{emit: t.emit, cancel: cancel, holdAll: t.visitor, prefix: prefix, begin: time.Now()}
	if wait > 0 {
		timer := time.AfterFunc(wait, g.expire)
		defer timer.Stop()
	}
	turn := *t.turn
	turn.Journal = rungJournal(t.turn, name) // its own resume points, apart from the others' (resume.go)
	approve, askApproval, clientTool := turn.RequestApproval, turn.AskApproval, turn.RequestClientTool
	if askApproval != nil {
		turn.AskApproval = func(ctx context.Context, req runtime.ApprovalRequest) (runtime.ApprovalAnswer, error) {
			if err := g.suspend(); err != nil {
				return runtime.ApprovalAnswer{}, err
			}
			return askApproval(ctx, req)
		}
	}
	if approve != nil {
		turn.RequestApproval = func(ctx context.Context, req runtime.ApprovalRequest) error {
			if err := g.suspend(); err != nil {
				return err
			}
			return approve(ctx, req)
		}
	}
	if clientTool != nil {
		turn.RequestClientTool = func(ctx context.Context, req runtime.ClientToolRequest) (json.RawMessage, error) {
			if err := g.suspend(); err != nil {
				return nil, err
			}
			return clientTool(ctx, req)
		}
	}
	if clientTools := turn.RequestClientTools; clientTools != nil {
		turn.RequestClientTools = func(ctx context.Context, reqs []runtime.ClientToolRequest) ([]json.RawMessage, error) {
			if err := g.suspend(); err != nil {
				return nil, err
			}
			return clientTools(ctx, reqs)
		}
	}
	err := t.r.harnesses[name].Run(hctx, &turn, g.send)

	g.mu.Lock()
	defer g.mu.Unlock()
	out := outcome{usage: g.usage, waited: time.Since(g.begin), cause: err}
	if g.started {
		out.waited = g.startedAt.Sub(g.begin)
	}
	switch {
	case g.timedOut:
		out.reason = ReasonTimeout
	case ctx.Err() != nil:
		out.err, out.started = ctx.Err(), g.started
	case err != nil && g.started:
		out.reason, out.err, out.started = ReasonError, err, true
	case err != nil:
		out.reason = failureReason(err)
	case !g.started && !g.sawText && !g.suspended:
		out.reason = ReasonEmpty
	case !g.started:
		if e := g.startLocked(); e != nil {
			out.err = e
		}
		out.started, out.waited = true, time.Since(g.begin)
		if g.sawText {
			out.waited = g.textAt.Sub(g.begin)
		}
	default:
		out.started = true
	}
	return out
}

// The relay backend's codes for refusals (relay/agent's CodeOwnerOnly,
// CodeVisitorCap).
const (
	relayOwnerOnly  = "relay_owner_only"
	relayVisitorCap = "relay_visitor_cap"
)

// failureReason names a harness's failure: the relay refusing a
// visitor's turn is visitors off (or their cap), any other refusal is
// refused, the relay's unavailable participant is offline, its deadline
// a timeout.
func failureReason(err error) string {
	var e *runtime.Error
	if errors.As(err, &e) {
		switch {
		case e.Code == relayOwnerOnly:
			return ReasonVisitorsOff
		case e.Code == relayVisitorCap:
			return ReasonVisitorDailyCap
		case errors.Is(e, runtime.ErrAgentRefused):
			return ReasonRefused
		case strings.HasPrefix(e.Code, "relay_deadline"):
			return ReasonTimeout
		case strings.HasPrefix(e.Code, "relay_"):
			return ReasonOffline
		}
	}
	if errors.Is(err, runtime.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		return ReasonTimeout
	}
	return ReasonError
}
