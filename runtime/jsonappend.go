package runtime

import (
	"encoding/json"

	"github.com/harnest/harnest/internal/jsonwrite"
)

// The turn path writes its JSON (events, envelopes, receipts, transcript
// messages) with internal/jsonwrite: one encode per event, byte for byte
// what encoding/json writes (the tests compare the two on generated
// values). What is the runtime's own is here.

// appendUsage writes a usage member unless u is nil.
func appendUsage(o *jsonwrite.Object, u *Usage) {
	if u == nil {
		return
	}
	o.Key("usage")
	o.B = u.AppendJSON(o.B)
}

// AppendJSON writes the usage as encoding/json does (doors that write
// their own JSON by hand use it, so a new member reaches them all).
func (u *Usage) AppendJSON(b []byte) []byte {
	o := jsonwrite.Begin(b)
	o.Int("inputTokens", u.InputTokens)
	o.Int("outputTokens", u.OutputTokens)
	o.Int("totalTokens", u.TotalTokens)
	if u.CostMicros != 0 {
		o.Int("costMicros", u.CostMicros)
	}
	return o.End()
}

// appendArray writes n items as a JSON array ([] when none): item appends
// the i-th. The error is the first an item returned.
func appendArray(b []byte, n int, item func(b []byte, i int) ([]byte, error)) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		var e error
		b, e = item(b, i)
		err = firstError(err, e)
	}
	return append(b, ']'), err
}

// appendActivityMembers writes the members of agent_activity (and the
// agent and framework of agent_metadata) as an event and its output item
// both carry them, in their order.
func appendActivityMembers(o *jsonwrite.Object, agent, activity, target, code, framework string) {
	o.StrOmit("agent", agent)
	o.StrOmit("activity", activity)
	o.StrOmit("target", target)
	o.StrOmit("code", code)
	o.StrOmit("framework", framework)
}

// callMembers are the members from agent_metadata's raw to tool_result's
// output that an event and its output item both carry, in their order.
type callMembers struct {
	raw, value, arguments, output json.RawMessage
	id, name, callID              string
}

// appendCallMembers writes m's members that are set.
func appendCallMembers(o *jsonwrite.Object, m callMembers) error {
	err := firstError(
		o.RawOmit("raw", m.raw),
		o.RawOmit("value", m.value),
	)
	o.StrOmit("id", m.id)
	o.StrOmit("name", m.name)
	err = firstError(err, o.RawOmit("arguments", m.arguments))
	o.StrOmit("callId", m.callID)
	return firstError(err, o.RawOmit("output", m.output))
}
