package runtime

import (
	"encoding/json"
	"slices"
)

// appendJSON appends the event as JSON with the fields its type carries
// (see jsonappend.go): a state delta carries its object under "delta";
// response.completed carries the envelope's body after its four IDs.
func (e *Event) appendJSON(b []byte) ([]byte, error) {
	if e.Envelope != nil {
		o := beginObject(b)
		o.str("type", e.Type)
		o.int("sequence", e.Sequence)
		o.str("responseId", e.Envelope.ID)
		o.str("sessionId", e.Envelope.SessionID)
		if e.members != nil { // encoded once with the receipt
			o.b = append(append(o.b, ','), e.members...)
			return o.end(), nil
		}
		err := e.Envelope.EnvelopeBody.appendMembers(&o)
		return o.end(), err
	}
	o := beginObject(b)
	o.str("type", e.Type)
	o.int("sequence", e.Sequence)
	o.str("responseId", e.ResponseID)
	o.str("sessionId", e.SessionID)
	if e.Type != EventStateDelta {
		o.strOmit("delta", e.Delta)
	}
	o.strOmit("agent", e.Agent)
	o.strOmit("activity", e.Activity)
	o.strOmit("target", e.Target)
	o.strOmit("code", e.Code)
	o.strOmit("framework", e.Framework)
	o.strOmit("model", e.Model)
	o.strOmit("provider", e.Provider)
	o.strOmit("finishReason", e.FinishReason)
	o.usage("usage", e.Usage)
	err := firstError(
		o.rawOmit("raw", e.Raw),
		o.rawOmit("value", e.Value),
	)
	o.strOmit("id", e.ID)
	o.strOmit("name", e.Name)
	err = firstError(err, o.rawOmit("arguments", e.Arguments))
	o.strOmit("callId", e.CallID)
	err = firstError(err,
		o.rawOmit("output", e.Output),
		o.rawOmit("metadata", e.Metadata),
	)
	o.strOmit("error", e.Error)
	if a := e.Approval; a != nil {
		o.key("approval")
		p := beginObject(o.b)
		p.str("id", a.ID)
		p.str("callId", a.CallID)
		p.str("action", a.Action)
		p.str("message", a.Message)
		err = firstError(err, p.rawOmit("arguments", a.Arguments))
		p.str("expiresAt", a.ExpiresAt)
		o.b = p.end()
	}
	if c := e.ClientTool; c != nil {
		o.key("clientTool")
		p := beginObject(o.b)
		p.str("id", c.ID)
		p.str("callId", c.CallID)
		p.str("name", c.Name)
		err = firstError(err, p.raw("arguments", c.Arguments))
		p.str("expiresAt", c.ExpiresAt)
		o.b = p.end()
	}
	if a := e.Artifact; a != nil {
		o.key("artifact")
		var ae error
		o.b, ae = appendArtifactJSON(o.b, a)
		err = firstError(err, ae)
	}
	if e.Type == EventStateDelta {
		o.key("delta")
		o.b, err = appendRawMap(o.b, e.StateDelta, err)
	}
	return o.end(), err
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
		b = appendJSONString(b, k)
		b = append(b, ':')
		var e error
		b, e = appendRawJSON(b, m[k])
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
