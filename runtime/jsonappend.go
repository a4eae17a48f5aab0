package runtime

import "github.com/harnest/harnest/internal/jsonwrite"

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
