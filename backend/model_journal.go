package backend

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/internal/toolrun"
	"github.com/harnest/harnest/runtime"
)

// The model backend's resume points (runtime.Journal). Each model reply
// that calls tools is recorded once its events (text, reasoning, metadata,
// tool_call) are emitted, and each tool result once its tool_result is:
// a turn that runs again after its replica was lost replays those steps,
// asking the model nothing and running no tool again, and emitting
// nothing for them (their events are in the log). The step in flight is
// tried again with the same idempotency key: "<responseID>/<journal key>",
// sent to the model endpoint as the Idempotency-Key header and to tools as
// their call ID (toolrun.WithCallID). A reply that ends the turn is not
// recorded: a one-step turn writes no resume point.

// replyKey names step n's model reply in the journal.
func replyKey(step int) string { return "model/" + strconv.Itoa(step) }

// toolKey names the result of a call of step n.
func toolKey(step int, callID string) string { return "tool/" + strconv.Itoa(step) + "/" + callID }

// idempotencyKey is the key every try of a step sends, on every attempt.
func idempotencyKey(turn *runtime.Turn, key string) string { return turn.ResponseID + "/" + key }

// recordedReply is what a model reply's resume point holds: what the next
// steps send back to the model.
type recordedReply struct {
	Text      string          `json:"text,omitempty"`
	ToolCalls []chat.ToolCall `json:"toolCalls"`
}

// reply is model step n's answer: recalled from the journal, or asked of
// the model (then its events emitted and, when it calls tools, recorded).
func (m *Model) reply(ctx context.Context, turn *runtime.Turn, step int, req chat.Request, h chat.Handlers, emit runtime.Emit) (*chat.Result, error) {
	key := replyKey(step)
	if data, ok := turn.Journal.Recall(key); ok {
		var rec recordedReply
		if err := json.Unmarshal(data, &rec); err == nil && rec.ToolCalls != nil { // none: an answer a steer followed (model_steer.go)
			return &chat.Result{Text: rec.Text, ToolCalls: rec.ToolCalls}, nil
		}
		m.log.Warn("model backend: a recorded model reply cannot be read; asking the model again", "responseId", turn.ResponseID, "step", step)
	}
	req.IdempotencyKey = idempotencyKey(turn, key)
	res, err := m.complete(ctx, req, h)
	if err != nil {
		return nil, err
	}
	if err := emit(metadataEvent(res)); err != nil {
		return nil, err
	}
	if len(res.ToolCalls) == 0 {
		return res, nil
	}
	for _, c := range res.ToolCalls {
		if err := emit(runtime.Event{Type: runtime.EventToolCall, ID: c.ID, Name: c.Function.Name, Arguments: argumentsJSON(c.Function.Arguments)}); err != nil {
			return nil, err
		}
	}
	if err := turn.Journal.RecordJSON(ctx, key, recordedReply{Text: res.Text, ToolCalls: res.ToolCalls}); err != nil {
		return nil, err
	}
	return res, nil
}

// recallResult is a call's recorded result, if an earlier attempt had it.
func recallResult(turn *runtime.Turn, key string) (toolrun.Result, bool) {
	return runtime.RecallJSON[toolrun.Result](turn.Journal, key)
}

// finishCall reports a call's result (tool_result) and records it.
func (m *Model) finishCall(ctx context.Context, turn *runtime.Turn, c *toolCall, emit runtime.Emit) error {
	if err := emit(runtime.Event{Type: runtime.EventToolResult, CallID: c.ID, Name: c.Function.Name, Output: c.result.Output}); err != nil {
		return err
	}
	return turn.Journal.RecordJSON(ctx, c.key, c.result)
}
