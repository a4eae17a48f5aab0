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
	history := []runtime.Message{}
	if turn.History != nil {
		h, err := turn.History(ctx, workerHistoryLimit)
		if err != nil {
			return nil, fmt.Errorf("exec worker: read the session history: %w", err)
		}
		if h != nil {
			history = h
		}
	}
	line, err := encodeLine(turnLine{
		Type: "turn", ID: id, SessionID: turn.SessionID, UserID: turn.UserID,
		Input: turn.Input, Content: content, State: state, Metadata: metadata, History: history, Message: turn.Message,
		TraceParent: tracing.TraceParent(ctx),
	})
	if err != nil {
		return nil, fmt.Errorf("exec worker: encode the turn: %w", err)
	}
	return line, nil
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

	// The worker's requests run in goroutines under reqCtx, so that the
	// loop keeps reading while a human decides. They end before we return.
	reqCtx, cancelReqs := context.WithCancel(ctx)
	var reqs sync.WaitGroup
	defer func() {
		cancelReqs()
		reqs.Wait()
	}()
	answers := make(chan workerAnswer)

	p.send(line)

	// The idle timer fires when the worker has written nothing for the
	// timeout while it owes us output (not while it waits for an answer).
	timeout := w.spec.timeout
	var idle *time.Timer
	var idleC <-chan time.Time
	if timeout > 0 {
		idle = time.NewTimer(timeout)
		defer idle.Stop()
		idleC = idle.C
	}
	pending := map[string]bool{} // request ids without an answer yet
	var refusal error            // a denial or expiry
	exited := p.exited           // nil once we saw the process exit
	var drain <-chan time.Time   // after the exit: how long to read on

	// idleOrBroken is the state of a worker that finished the turn: it
	// is broken if it exited meanwhile.
	idleOrBroken := func() workerAfter {
		if exited == nil {
			return workerBroken
		}
		return workerIdle
	}
	// abandon ends the turn early with reason; the worker is told to
	// cancel (by Run, in the background) unless it is gone.
	abandon := func(reason error) (workerAfter, error) {
		if exited == nil {
			return workerBroken, reason
		}
		return workerCancelling, reason
	}

	for {
		select {
		case r, ok := <-p.lines:
			if !ok {
				return workerBroken, w.lost(p)
			}
			if r.err != nil {
				w.logger.Warn("exec worker: worker sent an invalid line", "pid", p.pid, "responseId", id, "error", r.err)
				return workerBroken, agentFailure("worker sent an invalid line: %v", r.err)
			}
			if idle != nil && len(pending) == 0 {
				idle.Reset(timeout)
			}
			if len(bytes.TrimSpace(r.line)) == 0 {
				continue
			}
			m, err := decodeWorkerLine(r.line)
			if err != nil {
				w.logger.Warn("exec worker: worker sent an invalid line", "pid", p.pid, "responseId", id,
					"error", err, "line", cut(string(r.line), workerLogLineMax))
				return workerBroken, agentFailure("worker sent an invalid line: %v", err)
			}
			if m.ID != id {
				w.logger.Warn("exec worker: worker sent a line for another turn", "pid", p.pid, "responseId", id,
					"line", cut(string(r.line), workerLogLineMax))
				return workerBroken, agentFailure("worker sent a %s line for another turn", m.Type)
			}

			switch m.Type {
			case wDone:
				return idleOrBroken(), refusal
			case wError:
				w.logger.Warn("exec worker: worker reported an error", "pid", p.pid, "responseId", id,
					"message", cut(m.Message, workerLogLineMax))
				if refusal != nil {
					return idleOrBroken(), refusal
				}
				return idleOrBroken(), agentFailure("the worker reported an error (see the server log)")
			case wResult:
				// Reserved: the runtime has no structured results yet.
				w.logger.Debug("exec worker: ignoring a result line", "pid", p.pid, "responseId", id)
			case wApprovalRequest, wClientToolRequest:
				if pending[m.RequestID] {
					return workerBroken, agentFailure("worker sent request id %s twice", quoteShort(m.RequestID))
				}
				if m.Type == wApprovalRequest && turn.RequestApproval == nil {
					return abandon(agentFailure("the worker asked for an approval but the runtime offers none for this turn"))
				}
				if m.Type == wClientToolRequest && turn.RequestClientTool == nil {
					return abandon(agentFailure("the worker asked for a client tool but the runtime offers none for this turn"))
				}
				pending[m.RequestID] = true
				if idle != nil {
					idle.Stop()
				}
				reqs.Add(1)
				go func() {
					defer reqs.Done()
					a := ask(reqCtx, id, turn, m)
					select {
					case answers <- a:
					case <-reqCtx.Done():
					}
				}()
			default:
				if refusal != nil {
					// A refused turn has no more output.
					continue
				}
				event, _ := m.event()
				if err := emit(event); err != nil {
					return abandon(err)
				}
			}

		case a := <-answers:
			delete(pending, a.requestID)
			if a.fatal != nil {
				return abandon(a.fatal)
			}
			if a.refusal != nil && refusal == nil {
				refusal = a.refusal
			}
			p.send(a.line)
			if idle != nil && len(pending) == 0 {
				idle.Reset(timeout)
			}

		case <-exited:
			// Read what the worker wrote before it exited (its done,
			// perhaps), for a moment; its leftover children go now.
			exited = nil
			p.killGroup()
			timer := time.NewTimer(workerCancelGrace)
			defer timer.Stop()
			drain = timer.C

		case <-drain:
			return workerBroken, w.lost(p)

		case <-idleC:
			w.logger.Warn("exec worker: worker sent nothing within the timeout; killing it",
				"pid", p.pid, "responseId", id, "timeout", timeout.String())
			return workerBroken, runtime.Errorf(runtime.ErrTimeout, "timeout",
				"exec worker: the worker sent nothing for %s", timeout)

		case <-ctx.Done():
			return abandon(ctx.Err())
		}
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
