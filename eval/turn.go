package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/harnest/harnest/runtime"
)

// TransportEval names the eval runner as a response's transport (metrics).
const TransportEval = "eval"

// maxWaits bounds the approvals and client tools one turn may ask for, so
// that an agent that asks again and again cannot hold the run.
const maxWaits = 32

// turnRun is a turn's result and the session it ran in.
type turnRun struct {
	TurnResult
	session string
}

// runTurn sends one input, answers the waits it reaches as the case says,
// and reads the final receipt and the tool calls from the event log. An
// error means the conversation cannot go on (the turn did not start, a
// wait the case does not answer, the turn timed out).
func (r *Runner) runTurn(ctx context.Context, p runtime.Principal, c *Case, t *Turn, session string) (turnRun, error) {
	start := time.Now()
	tr := turnRun{TurnResult: TurnResult{Input: t.input.text, ToolCalls: []ToolCall{}, Checks: []Check{}}}
	defer func() { tr.Duration = Millis(time.Since(start)) }()
	timeout := r.TurnTimeout
	if timeout <= 0 {
		timeout = DefaultTurnTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req := runtime.ResponseRequest{Input: t.input.text, SessionID: session, Transport: TransportEval}
	if t.input.typed != nil {
		req.Parts = []runtime.InputPart{{Type: "data", Data: t.input.typed}}
	}
	resp, err := r.Service.StartResponse(ctx, p, req)
	if err != nil {
		return tr, fmt.Errorf("the agent refused the input: %v", err)
	}
	tr.ResponseID, tr.session = resp.ID, resp.SessionID
	env := resp.Outcome().Envelope
	for n := 0; env.Status == runtime.StatusRequiresAction && env.RequiredAction != nil; n++ {
		if n == maxWaits {
			abandon(resp)
			return tr, fmt.Errorf("the agent asked for more than %d approvals or client tools in one turn", maxWaits)
		}
		next, label, err := r.answer(ctx, p, c, env.RequiredAction)
		tr.Waits = append(tr.Waits, label)
		if err != nil {
			abandon(resp)
			return tr, err
		}
		env = next
	}
	select {
	case <-resp.Done():
	case <-ctx.Done():
		abandon(resp)
		return tr, fmt.Errorf("the turn did not end within %s", timeout)
	}
	final, err := r.Service.Receipt(ctx, p, resp.SessionID, resp.ID)
	if err != nil {
		return tr, fmt.Errorf("reading the receipt: %v", err)
	}
	tr.Status, tr.Answer, tr.Result = final.Status, final.OutputText, final.Result
	tr.ToolCalls, err = r.toolCalls(ctx, p, resp.SessionID, resp.ID, final)
	return tr, err
}

// abandonWait bounds how long abandon waits for a cancelled response to be
// recorded.
const abandonWait = 10 * time.Second

// abandon cancels a response the case cannot take further and waits (a
// while) until it is recorded cancelled, so that it does not hold its
// session or a slot when the next case starts.
func abandon(resp *runtime.Response) {
	resp.Cancel()
	select {
	case <-resp.Done():
	case <-time.After(abandonWait):
	}
}

// answer answers one wait as the case says and returns the response's
// next boundary (its envelope; a denial that ended the response gives
// one with status denied), and a label for the report.
func (r *Runner) answer(ctx context.Context, p runtime.Principal, c *Case, a *runtime.RequiredAction) (runtime.Envelope, string, error) {
	var ans runtime.Answer
	var label string
	var err error
	switch a.Type {
	case "client_tool":
		output, ok := c.ClientTools[a.Name]
		label = "client tool " + a.Name
		if !ok {
			return runtime.Envelope{}, label, fmt.Errorf("the agent asked for client tool %q, which the case does not answer (add it to clientTools)", a.Name)
		}
		b, jerr := json.Marshal(output)
		if jerr != nil {
			return runtime.Envelope{}, label, fmt.Errorf("client tool %q: %v", a.Name, jerr)
		}
		ans, err = r.Service.SubmitClientTool(ctx, p, a.ID, b)
	default:
		decision, ok := c.Approvals[a.Action]
		if !ok {
			decision, ok = c.Approvals["*"]
		}
		label = "approval " + a.Action + ": " + decision
		if !ok {
			return runtime.Envelope{}, "approval " + a.Action, fmt.Errorf("the agent asked to approve %q, which the case does not answer (add it to approvals)", a.Action)
		}
		ans, err = r.Service.Decide(ctx, p, a.ID, decision == "approve")
	}
	if err != nil {
		return runtime.Envelope{}, label, fmt.Errorf("answering %s: %v", label, err)
	}
	env, perr := runtime.ParseReceipt(ans.Body)
	if perr != nil {
		return runtime.Envelope{}, label, fmt.Errorf("answering %s: %v", label, perr)
	}
	return env, label, nil
}

// toolCalls reads the turn's tool calls from its event log (every segment
// of it, the waits' included), or from the receipt's output when the log
// is no longer held.
func (r *Runner) toolCalls(ctx context.Context, p runtime.Principal, session, responseID string, final runtime.Envelope) ([]ToolCall, error) {
	calls := []ToolCall{}
	frames, held, err := r.Service.LoggedEvents(ctx, p, session, responseID, -1, 0)
	if err != nil {
		return calls, fmt.Errorf("reading the events: %v", err)
	}
	if !held {
		for _, item := range final.Output {
			if item.Type == "tool_call" {
				calls = append(calls, ToolCall{Name: item.Name, Arguments: item.Arguments})
			}
		}
		return calls, nil
	}
	for _, f := range frames {
		if f.Type != runtime.EventToolCall {
			continue
		}
		e, err := f.Event()
		if err != nil {
			return calls, errors.New("reading a tool call event: " + err.Error())
		}
		calls = append(calls, ToolCall{Name: e.Name, Arguments: e.Arguments})
	}
	return calls, nil
}
