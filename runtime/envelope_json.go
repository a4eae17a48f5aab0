package runtime

import "github.com/harnest/harnest/internal/jsonwrite"

// appendJSON appends the envelope as JSON (see jsonappend.go): the bytes a
// non-streaming call returns and the receipt keeps.
func (env *Envelope) appendJSON(b []byte) ([]byte, error) {
	o := jsonwrite.Begin(b)
	o.Str("id", env.ID)
	o.Str("sessionId", env.SessionID)
	err := env.EnvelopeBody.appendMembers(&o)
	return o.End(), err
}

// members is the body's members as JSON, without braces: what the receipt
// and response.completed share.
func (body *EnvelopeBody) members(size int) ([]byte, error) {
	o := jsonwrite.Object{B: make([]byte, 0, size)}
	err := body.appendMembers(&o)
	return o.B, err
}

// completedWithReceipt returns the response.completed event of env and
// env's receipt, with the envelope's body encoded once for both.
func completedWithReceipt(env *Envelope) (Event, []byte, error) {
	m, err := env.members(env.sizeHint())
	if err != nil {
		return Event{}, nil, err
	}
	o := jsonwrite.Begin(make([]byte, 0, len(m)+len(env.ID)+len(env.SessionID)+32))
	o.Str("id", env.ID)
	o.Str("sessionId", env.SessionID)
	o.B = append(append(o.B, ','), m...)
	return Event{Type: EventCompleted, Envelope: env, members: m}, o.End(), nil
}

// encode is the envelope as JSON.
func (env *Envelope) encode() ([]byte, error) { return env.appendJSON(make([]byte, 0, env.sizeHint())) }

// sizeHint is about the length of the envelope's JSON, so that encoding it
// takes one allocation: the fixed members, the IDs, the output text twice
// (outputText and the message item) and room for each item.
func (env *Envelope) sizeHint() int {
	return 192 + len(env.ID) + len(env.SessionID) + 2*len(env.OutputText) + 96*len(env.Output) + len(env.Metadata)
}

// appendMembers writes the body's members into an open object.
func (body *EnvelopeBody) appendMembers(o *jsonwrite.Object) error {
	o.Str("status", body.Status)
	o.Str("outputText", body.OutputText)
	o.Key("output")
	var err error
	if body.Output == nil {
		o.B = append(o.B, "null"...)
	} else {
		o.B, err = appendArray(o.B, len(body.Output), func(b []byte, i int) ([]byte, error) { return body.Output[i].appendJSON(b) })
	}
	err = firstError(err, o.Raw("metadata", body.Metadata))
	appendUsage(o, body.Usage)
	err = firstError(err, o.RawOmit("result", body.Result))
	if body.Error != nil {
		o.Key("error")
		p := jsonwrite.Begin(o.B)
		p.Str("code", body.Error.Code)
		if body.Error.Attempts > 0 {
			p.Int("attempts", body.Error.Attempts)
		}
		o.B = p.End()
	}
	if ra := body.RequiredAction; ra != nil {
		o.Key("requiredAction")
		p := jsonwrite.Begin(o.B)
		p.Str("type", ra.Type)
		p.Str("id", ra.ID)
		p.Str("callId", ra.CallID)
		p.StrOmit("action", ra.Action)
		p.StrOmit("message", ra.Message)
		p.StrOmit("name", ra.Name)
		err = firstError(err, p.RawOmit("arguments", ra.Arguments))
		p.Str("expiresAt", ra.ExpiresAt)
		err = firstError(err, appendAnswers(&p, ra.Answers, ra.ArgumentsSchema))
		if len(ra.Calls) > 0 {
			p.Key("calls")
			var ce error
			p.B, ce = appendArray(p.B, len(ra.Calls), func(b []byte, i int) ([]byte, error) {
				q := jsonwrite.Begin(b)
				q.Str("callId", ra.Calls[i].CallID)
				q.Str("name", ra.Calls[i].Name)
				e := q.Raw("arguments", ra.Calls[i].Arguments)
				return q.End(), e
			})
			err = firstError(err, ce)
		}
		o.B = p.End()
	}
	o.StrOmit("approvalId", body.ApprovalID)
	o.StrOmit("clientToolId", body.ClientToolID)
	return err
}

// appendJSON appends one output item with the fields its type carries.
func (it *OutputItem) appendJSON(b []byte) ([]byte, error) {
	o := jsonwrite.Begin(b)
	o.Str("type", it.Type)
	o.StrOmit("role", it.Role)
	if len(it.Content) > 0 {
		o.Key("content")
		o.B, _ = appendArray(o.B, len(it.Content), func(b []byte, i int) ([]byte, error) {
			p := jsonwrite.Begin(b)
			p.Str("type", it.Content[i].Type)
			p.Str("text", it.Content[i].Text)
			return p.End(), nil
		})
	}
	appendActivityMembers(&o, it.Agent, it.Activity, it.Target, it.Code, it.Framework)
	appendUsage(&o, it.Usage)
	o.StrOmit("model", it.Model)
	o.StrOmit("provider", it.Provider)
	o.StrOmit("finishReason", it.FinishReason)
	err := appendCallMembers(&o, callMembers{raw: it.Raw, value: it.Value, id: it.ID, name: it.Name,
		arguments: it.Arguments, callID: it.CallID, output: it.Output})
	err = firstError(err, appendResolution(&o, it.Resolution))
	if it.Type == OutputArtifact {
		o.Str("artifactId", it.ArtifactID)
		o.StrOmit("description", it.Description)
		o.Key("parts")
		var pe error
		o.B, pe = appendArtifactParts(o.B, it.Parts)
		err = firstError(err, pe, o.RawOmit("metadata", it.ArtifactMetadata))
	}
	return o.End(), err
}
