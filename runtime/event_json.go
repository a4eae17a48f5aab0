package runtime

import (
	"encoding/json"
	"slices"

	"github.com/harnest/harnest/internal/jsonwrite"
)

// appendJSON appends the event as JSON with the fields its type carries
// (see jsonappend.go): a state delta carries its object under "delta";
// response.completed carries the envelope's body after its four IDs.
func (e *Event) appendJSON(b []byte) ([]byte, error) {
	if e.Envelope != nil {
		o := jsonwrite.Begin(b)
		o.Str("type", e.Type)
		o.Int("sequence", e.Sequence)
		o.Str("responseId", e.Envelope.ID)
		o.Str("sessionId", e.Envelope.SessionID)
		if e.members != nil { // encoded once with the receipt
			o.B = append(append(o.B, ','), e.members...)
			return o.End(), nil
		}
		err := e.Envelope.EnvelopeBody.appendMembers(&o)
		return o.End(), err
	}
	o := jsonwrite.Begin(b)
	o.Str("type", e.Type)
	o.Int("sequence", e.Sequence)
	o.Str("responseId", e.ResponseID)
	o.Str("sessionId", e.SessionID)
	if e.Type != EventStateDelta {
		o.StrOmit("delta", e.Delta)
	}
	appendActivityMembers(&o, e.Agent, e.Activity, e.Target, e.Code, e.Framework)
	o.StrOmit("model", e.Model)
	o.StrOmit("provider", e.Provider)
	o.StrOmit("finishReason", e.FinishReason)
	appendUsage(&o, e.Usage)
	err := firstError(
		appendCallMembers(&o, callMembers{raw: e.Raw, value: e.Value, id: e.ID, name: e.Name,
			arguments: e.Arguments, callID: e.CallID, output: e.Output}),
		o.RawOmit("metadata", e.Metadata),
	)
	o.StrOmit("error", e.Error)
	if a := e.Approval; a != nil {
		o.Key("approval")
		p := jsonwrite.Begin(o.B)
		p.Str("id", a.ID)
		p.Str("callId", a.CallID)
		p.Str("action", a.Action)
		p.Str("message", a.Message)
		err = firstError(err, p.RawOmit("arguments", a.Arguments))
		p.Str("expiresAt", a.ExpiresAt)
		err = firstError(err, appendAnswers(&p, a.Answers, a.ArgumentsSchema))
		o.B = p.End()
	}
	err = firstError(err, appendResolution(&o, e.Resolution))
	if c := e.ClientTool; c != nil {
		o.Key("clientTool")
		p := jsonwrite.Begin(o.B)
		p.Str("id", c.ID)
		p.Str("callId", c.CallID)
		p.Str("name", c.Name)
		err = firstError(err, p.Raw("arguments", c.Arguments))
		p.Str("expiresAt", c.ExpiresAt)
		if b := c.Batch; b != nil {
			p.Key("batch")
			q := jsonwrite.Begin(p.B)
			q.Int("index", b.Index)
			q.Int("size", b.Size)
			p.B = q.End()
		}
		o.B = p.End()
	}
	if a := e.Artifact; a != nil {
		o.Key("artifact")
		var ae error
		o.B, ae = appendArtifactJSON(o.B, a)
		err = firstError(err, ae)
	}
	if rt := e.Retracted; rt != nil {
		o.Key("retracted")
		p := jsonwrite.Begin(o.B)
		p.Int("fromSequence", rt.FromSequence)
		p.Int("toSequence", rt.ToSequence)
		p.Str("text", rt.Text)
		p.Int("attempt", rt.Attempt)
		o.B = p.End()
	}
	if st := e.Steered; st != nil {
		o.Key("steer")
		p := jsonwrite.Begin(o.B)
		p.Str("id", st.ID)
		p.Str("input", st.Input)
		err = firstError(err, p.Raw("content", st.Content))
		o.B = p.End()
	}
	if e.Type == EventStateDelta {
		o.Key("delta")
		o.B, err = appendRawMap(o.B, e.StateDelta, err)
	}
	return o.End(), err
}

// appendRawMap writes a map of raw JSON values with its keys sorted, as
// encoding/json does; a nil map is an empty object.
func appendRawMap(b []byte, m map[string]json.RawMessage, err error) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonwrite.AppendString(b, k)
		b = append(b, ':')
		var e error
		b, e = jsonwrite.AppendRaw(b, m[k])
		err = firstError(err, e)
	}
	return append(b, '}'), err
}

// firstError returns the first error that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
