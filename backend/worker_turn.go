package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/harnest/harnest/internal/tracing"
	"github.com/harnest/harnest/runtime"
)

// This file is one turn's conversation with a worker: the turn line, the
// worker's lines mapped to runtime events, its approval and client tool
// requests, the idle timeout, and the cancel.

const (
	// workerHistoryLimit is how many transcript messages a turn carries.
	workerHistoryLimit = 20
	// workerLogLineMax is how much of an invalid line or of a worker's
	// error message goes to the log.
	workerLogLineMax = 1 << 10
)

// turnLine is the line that starts a turn.
func (w *Workers) turnLine(ctx context.Context, id string, turn *runtime.Turn) ([]byte, error) {
	content, err := workerContentOf(ctx, turn)
	if err != nil {
		return nil, err
	}
	state := turn.State
	if state == nil {
		state = map[string]json.RawMessage{}
	}
	metadata := turn.Metadata
	if len(bytes.TrimSpace(metadata)) == 0 {
		metadata = emptyObject
	}
	history, compaction, err := workerHistory(ctx, turn)
	if err != nil {
		return nil, fmt.Errorf("exec worker: read the session history: %w", err)
	}
	line, err := encodeLine(turnLine{
		Type: "turn", ID: id, SessionID: turn.SessionID, UserID: turn.UserID,
		Input: turn.Input, Content: content, State: state, Metadata: metadata, History: history, Compaction: compaction, Message: turn.Message,
		TraceParent: tracing.TraceParent(ctx), Attempt: max(turn.Attempt, 1), Checkpoint: recallCheckpoint(turn),
	})
	if err != nil {
		return nil, fmt.Errorf("exec worker: encode the turn: %w", err)
	}
	return line, nil
}

// workerHistory is the history a turn line carries: the session's newest
// compaction item (nil: none) and up to workerHistoryLimit messages after
// its range (runtime/compact.go), or the newest messages when the runtime
// offers no compaction.
func workerHistory(ctx context.Context, turn *runtime.Turn) ([]runtime.Message, *runtime.CompactionItem, error) {
	history := []runtime.Message{}
	if turn.Compaction != nil {
		h, err := turn.Compaction.History(ctx, workerHistoryLimit)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range h.Messages {
			history = append(history, m.Message)
		}
		return history, h.Summary, nil
	}
	if turn.History != nil {
		h, err := turn.History(ctx, workerHistoryLimit)
		if err != nil {
			return nil, nil, err
		}
		if h != nil {
			history = h
		}
	}
	return history, nil, nil
}

// workerContentOf is the turn's content as the turn line carries it:
// media of at most workerInlineBytes with its bytes.
func workerContentOf(ctx context.Context, turn *runtime.Turn) ([]workerContent, error) {
	if turn.Content == nil {
		if turn.Input == "" {
			return []workerContent{}, nil
		}
		return []workerContent{{ContentInput: runtime.ContentInput{Type: "text", Text: turn.Input}}}, nil
	}
	out := make([]workerContent, len(turn.Content))
	for i, c := range turn.Content {
		out[i].ContentInput = c
		if c.Data == nil || c.SizeBytes > workerInlineBytes {
			continue
		}
		b, err := c.Data(ctx)
		if err != nil {
			return nil, fmt.Errorf("exec worker: read the input's asset %s: %w", c.AssetID, err)
		}
		out[i].Bytes = b
	}
	return out, nil
}

// workerAnswer is the outcome of a request a worker made: the line that
// answers it, or a failure of the turn.
type workerAnswer struct {
	requestID string
	line      []byte
	refusal   error // a denied or expired approval: Run returns it at the end
	fatal     error // the turn cannot go on
}

// agentFailure is the error of a turn that a worker broke.
func agentFailure(format string, args ...any) *runtime.Error {
	return runtime.Errorf(runtime.ErrAgentFailed, "agent_failed", "exec worker: "+format, args...)
}

// runTurn runs one turn on p and says what is to become of the worker.
// It never blocks on the worker once ctx is done.
func (w *Workers) runTurn(ctx context.Context, p *workerProc, id string, turn *runtime.Turn,
	line []byte, emit runtime.Emit) (workerAfter, error) {
	p.turn.Store(&id)
	defer p.turn.Store(nil)

	t := &workerTurn{w: w, p: p, id: id, turn: turn, emit: emit,
		answers: make(chan workerAnswer), pending: map[string]bool{}, exited: p.exited}
	// The worker's requests run in goroutines under reqCtx, so that the
	// loop keeps reading while a human decides. They end before we return.
	reqCtx, cancelReqs := context.WithCancel(ctx)
	t.reqCtx = reqCtx
	defer func() {
		cancelReqs()
		t.reqs.Wait()
	}()

	p.send(line)

	t.idle = newIdleTimer(w.spec.timeout)
	defer t.idle.stop()
	var drain <-chan time.Time // after the exit: how long to read on

	for {
		var end turnEnd
		select {
		case r, ok := <-p.lines:
			end = t.onRead(r, ok)

		case a := <-t.answers:
			end = t.onAnswer(a)

		case <-turn.Steers.Ready(): // nil (never ready) without steering
			end = t.onSteer() // worker_steer.go

		case <-t.exited:
			// Read what the worker wrote before it exited (its done,
			// perhaps), for a moment; its leftover children go now.
			t.exited = nil
			p.killGroup()
			timer := time.NewTimer(workerCancelGrace)
			defer timer.Stop()
			drain = timer.C

		case <-drain:
			return workerBroken, w.lost(p)

		case <-t.idle.c():
			w.logger.Warn("exec worker: worker sent nothing within the timeout; killing it",
				"pid", p.pid, "responseId", id, "timeout", t.idle.timeout.String())
			return workerBroken, runtime.Errorf(runtime.ErrTimeout, "timeout",
				"exec worker: the worker sent nothing for %s", t.idle.timeout)

		case <-ctx.Done():
			end = t.abandon(ctx.Err())
		}
		if end.ended {
			return end.after, end.err
		}
	}
}

// workerTurn is a turn in progress on a worker: what runTurn's loop keeps
// between the worker's lines and the answers to its requests.
type workerTurn struct {
	w    *Workers
	p    *workerProc
	id   string
	turn *runtime.Turn
	emit runtime.Emit

	reqCtx  context.Context   // the worker's requests run under it
	reqs    sync.WaitGroup    // the requests running
	answers chan workerAnswer // what the requests end with
	pending map[string]bool   // request ids without an answer yet
	refusal error             // a denial or expiry
	exited  <-chan struct{}   // nil once we saw the process exit
	idle    *idleTimer
}

// turnEnd is what becomes of a turn after one step: it goes on, or it
// ended with the worker in state after and the turn's error err.
type turnEnd struct {
	ended bool
	after workerAfter
	err   error
}

// goOn is the step of a turn that is not over.
var goOn = turnEnd{}

// endTurn ends the turn.
func endTurn(after workerAfter, err error) turnEnd {
	return turnEnd{ended: true, after: after, err: err}
}

// idleOrBroken is the state of a worker that finished the turn: it is
// broken if it exited meanwhile.
func (t *workerTurn) idleOrBroken() workerAfter {
	if t.exited == nil {
		return workerBroken
	}
	return workerIdle
}

// abandon ends the turn early with reason; the worker is told to cancel
// (by Run, in the background) unless it is gone.
func (t *workerTurn) abandon(reason error) turnEnd {
	if t.exited == nil {
		return endTurn(workerBroken, reason)
	}
	return endTurn(workerCancelling, reason)
}

// onRead takes one line of the worker's stdout (ok false: stdout closed).
func (t *workerTurn) onRead(r workerRead, ok bool) turnEnd {
	w, p, id := t.w, t.p, t.id
	if !ok {
		return endTurn(workerBroken, w.lost(p))
	}
	if r.err != nil {
		w.logger.Warn("exec worker: worker sent an invalid line", "pid", p.pid, "responseId", id, "error", r.err)
		return endTurn(workerBroken, agentFailure("worker sent an invalid line: %v", r.err))
	}
	if len(t.pending) == 0 {
		t.idle.reset()
	}
	if len(bytes.TrimSpace(r.line)) == 0 {
		return goOn
	}
	m, ok := decodeHotLine(bytes.TrimSpace(r.line), id)
	var err error
	if !ok {
		m, err = decodeWorkerLine(r.line)
	}
	if err != nil {
		w.logger.Warn("exec worker: worker sent an invalid line", "pid", p.pid, "responseId", id,
			"error", err, "line", cut(string(r.line), workerLogLineMax))
		return endTurn(workerBroken, agentFailure("worker sent an invalid line: %v", err))
	}
	if m.ID != id {
		w.logger.Warn("exec worker: worker sent a line for another turn", "pid", p.pid, "responseId", id,
			"line", cut(string(r.line), workerLogLineMax))
		return endTurn(workerBroken, agentFailure("worker sent a %s line for another turn", m.Type))
	}
	return t.onMessage(m)
}

// onMessage takes one message of the worker's for this turn.
func (t *workerTurn) onMessage(m workerMessage) turnEnd {
	w, p, id := t.w, t.p, t.id
	switch m.Type {
	case wDone:
		return endTurn(t.idleOrBroken(), t.refusal)
	case wError:
		w.logger.Warn("exec worker: worker reported an error", "pid", p.pid, "responseId", id,
			"message", cut(m.Message, workerLogLineMax))
		if t.refusal != nil {
			return endTurn(t.idleOrBroken(), t.refusal)
		}
		return endTurn(t.idleOrBroken(), agentFailure("the worker reported an error (see the server log)"))
	case wResult:
		// Reserved: the runtime has no structured results yet.
		w.logger.Debug("exec worker: ignoring a result line", "pid", p.pid, "responseId", id)
	case wApprovalRequest, wClientToolRequest:
		return t.onRequest(m)
	case wCheckpoint:
		return t.onCheckpoint(m)
	default:
		if t.refusal != nil {
			// A refused turn has no more output.
			return goOn
		}
		event, _ := m.event()
		if err := t.emit(event); err != nil {
			return t.abandon(err)
		}
	}
	return goOn
}

// onRequest starts asking the runtime what the worker asks (an approval,
// a client tool); the answer comes back on t.answers.
func (t *workerTurn) onRequest(m workerMessage) turnEnd {
	if t.pending[m.RequestID] {
		return endTurn(workerBroken, agentFailure("worker sent request id %s twice", quoteShort(m.RequestID)))
	}
	if m.Type == wApprovalRequest && t.turn.RequestApproval == nil {
		return t.abandon(agentFailure("the worker asked for an approval but the runtime offers none for this turn"))
	}
	if m.Type == wClientToolRequest && t.turn.RequestClientTool == nil {
		return t.abandon(agentFailure("the worker asked for a client tool but the runtime offers none for this turn"))
	}
	t.pending[m.RequestID] = true
	t.idle.stop()
	t.reqs.Add(1)
	go func() {
		defer t.reqs.Done()
		a := ask(t.reqCtx, t.id, t.turn, m)
		select {
		case t.answers <- a:
		case <-t.reqCtx.Done():
		}
	}()
	return goOn
}

// onAnswer sends the worker the answer to one of its requests.
func (t *workerTurn) onAnswer(a workerAnswer) turnEnd {
	delete(t.pending, a.requestID)
	if a.fatal != nil {
		return t.abandon(a.fatal)
	}
	if a.refusal != nil && t.refusal == nil {
		t.refusal = a.refusal
	}
	t.p.send(a.line)
	if len(t.pending) == 0 {
		t.idle.reset()
	}
	return goOn
}

// idleTimer fires when the worker has written nothing for the timeout
// while it owes us output (not while it waits for an answer). With no
// timeout it never fires.
type idleTimer struct {
	timeout time.Duration
	timer   *time.Timer // nil: no timeout
}

func newIdleTimer(timeout time.Duration) *idleTimer {
	i := &idleTimer{timeout: timeout}
	if timeout > 0 {
		i.timer = time.NewTimer(timeout)
	}
	return i
}

// c is the channel the timer fires on (nil, never ready, without one).
func (i *idleTimer) c() <-chan time.Time {
	if i.timer == nil {
		return nil
	}
	return i.timer.C
}

// reset starts the timeout again.
func (i *idleTimer) reset() {
	if i.timer != nil {
		i.timer.Reset(i.timeout)
	}
}

// stop holds the timer while the worker waits for an answer.
func (i *idleTimer) stop() {
	if i.timer != nil {
		i.timer.Stop()
	}
}

// lost is the error of a turn whose worker exited or closed its stdout.
func (w *Workers) lost(p *workerProc) error {
	// The output usually ends just before the process is reaped.
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	select {
	case <-p.exited:
		status := exitStatus(p.waitErr)
		w.logger.Warn("exec worker: worker exited mid-turn", "pid", p.pid, "status", status)
		return agentFailure("the worker exited mid-turn (%s)", status)
	case <-timer.C:
		w.logger.Warn("exec worker: worker closed its output mid-turn", "pid", p.pid)
		return agentFailure("the worker closed its output mid-turn")
	}
}

// cancel tells the worker to stop turn id and reads on until it says done,
// dropping anything else it sends for the turn. It reports whether the
// worker stopped within the grace period and can run the next turn.
func (w *Workers) cancel(p *workerProc, id string) bool {
	line, err := encodeLine(cancelLine{Type: "cancel", ID: id})
	if err != nil {
		return false
	}
	p.send(line)
	timer := time.NewTimer(workerCancelGrace)
	defer timer.Stop()
	for {
		select {
		case r, ok := <-p.lines:
			if !ok || r.err != nil {
				return false
			}
			if len(bytes.TrimSpace(r.line)) == 0 {
				continue
			}
			m, err := decodeWorkerLine(r.line)
			if err != nil || m.ID != id {
				return false
			}
			if m.Type == wDone || m.Type == wError {
				return true
			}
		case <-timer.C:
			w.logger.Warn("exec worker: worker did not finish a cancelled turn in time; killing it",
				"pid", p.pid, "responseId", id, "grace", workerCancelGrace.String())
			return false
		}
	}
}

// ask runs one request of a worker through the runtime and makes the line
// that answers it.
func ask(ctx context.Context, id string, turn *runtime.Turn, m workerMessage) workerAnswer {
	a := workerAnswer{requestID: m.RequestID}
	var reply any
	switch m.Type {
	case wApprovalRequest:
		message := m.Message
		if message == "" {
			message = fmt.Sprintf("Approve %s?", m.Action)
		}
		err := turn.RequestApproval(ctx, runtime.ApprovalRequest{
			Action: m.Action, Message: message, Arguments: m.Arguments,
		})
		decision := "approve"
		switch {
		case err == nil:
		case errors.Is(err, runtime.ErrApprovalDenied):
			decision, a.refusal = "deny", err
		case errors.Is(err, runtime.ErrApprovalExpired):
			decision, a.refusal = "expired", err
		default:
			a.fatal = err
			return a
		}
		reply = approvalLine{Type: "approval", ID: id, RequestID: m.RequestID, Decision: decision}

	case wClientToolRequest:
		output, err := turn.RequestClientTool(ctx, runtime.ClientToolRequest{
			Name: m.Name, Arguments: m.Arguments, CallID: m.CallID,
		})
		l := clientToolLine{Type: "client_tool", ID: id, RequestID: m.RequestID}
		switch {
		case err == nil:
			if len(bytes.TrimSpace(output)) == 0 {
				output = json.RawMessage("null")
			}
			l.Output = output
		case errors.Is(err, runtime.ErrClientToolFailed) && ctx.Err() == nil:
			l.Error = "client tool did not return"
		default:
			a.fatal = err
			return a
		}
		reply = l
	}
	line, err := encodeLine(reply)
	if err != nil {
		a.fatal = fmt.Errorf("exec worker: encode the answer to %s: %w", m.Type, err)
		return a
	}
	a.line = line
	return a
}
