package backend

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/runtime"
)

// Steering the model backend (runtime.Steerable): a message handed to a
// running turn becomes a user message before the turn's next model call.
// A steer that arrives while the model writes its final answer gets one
// more call (within maxSteps), so that the model answers it. The steers
// taken before step n are a resume point ("steer/<n>"): a turn that runs
// again replays them with the steps around them.

// TakesSteers reports that model turns take steers.
func (m *Model) TakesSteers() bool { return true }

var _ runtime.Steerable = (*Model)(nil)

// steerKey names the steers taken before step n in the journal.
func steerKey(step int) string { return "steer/" + strconv.Itoa(step) }

// steered appends the steers handed to the turn since the last step as
// user messages, before step's model call: those an earlier attempt took
// (recalled), or those waiting now (taken, announced and recorded).
func (m *Model) steered(ctx context.Context, turn *runtime.Turn, step int, messages []chat.Message) ([]chat.Message, error) {
	key := steerKey(step)
	if data, ok := turn.Journal.Recall(key); ok {
		var recalled []chat.Message
		if json.Unmarshal(data, &recalled) == nil {
			return append(messages, recalled...), nil
		}
	}
	steers, err := turn.Steers.Take()
	if err != nil || len(steers) == 0 {
		return messages, err
	}
	added := make([]chat.Message, 0, len(steers))
	for _, st := range steers {
		msg, err := inputMessage(ctx, &runtime.Turn{Input: st.Input, Content: st.Content})
		if err != nil {
			return nil, err
		}
		added = append(added, msg)
	}
	data, err := json.Marshal(added)
	if err != nil {
		return nil, err
	}
	if err := turn.Journal.Record(ctx, key, data); err != nil {
		return nil, err
	}
	return append(messages, added...), nil
}

// steersAfter reports whether steers wait for step (taken now, or by an
// earlier attempt): the turn then goes on after an answer without tool
// calls.
func steersAfter(turn *runtime.Turn, step int) bool {
	if _, ok := turn.Journal.Recall(steerKey(step)); ok {
		return true
	}
	return turn.Steers.Pending()
}

// keepAnswer records a reply without tool calls that a steer follows, so
// that a turn that runs again replays it rather than asking again.
func keepAnswer(ctx context.Context, turn *runtime.Turn, step int, res *chat.Result) error {
	if _, ok := turn.Journal.Recall(replyKey(step)); ok {
		return nil
	}
	data, err := json.Marshal(recordedReply{Text: res.Text, ToolCalls: []chat.ToolCall{}})
	if err != nil {
		return err
	}
	return turn.Journal.Record(ctx, replyKey(step), data)
}
