package runtime

// appendJSON appends the envelope as JSON (see jsonappend.go): the bytes a
// non-streaming call returns and the receipt keeps.
func (env *Envelope) appendJSON(b []byte) ([]byte, error) {
	o := beginObject(b)
	o.str("id", env.ID)
	o.str("sessionId", env.SessionID)
	err := env.EnvelopeBody.appendMembers(&o)
	return o.end(), err
}

// members is the body's members as JSON, without braces: what the receipt
// and response.completed share.
func (body *EnvelopeBody) members(size int) ([]byte, error) {
	o := object{b: make([]byte, 0, size)}
	err := body.appendMembers(&o)
	return o.b, err
}

// completedWithReceipt returns the response.completed event of env and
// env's receipt, with the envelope's body encoded once for both.
func completedWithReceipt(env *Envelope) (Event, []byte, error) {
	m, err := env.members(env.sizeHint())
	if err != nil {
		return Event{}, nil, err
	}
	o := beginObject(make([]byte, 0, len(m)+len(env.ID)+len(env.SessionID)+32))
	o.str("id", env.ID)
	o.str("sessionId", env.SessionID)
	o.b = append(append(o.b, ','), m...)
	return Event{Type: EventCompleted, Envelope: env, members: m}, o.end(), nil
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
func (body *EnvelopeBody) appendMembers(o *object) error {
	o.str("status", body.Status)
	o.str("outputText", body.OutputText)
	o.key("output")
	var err error
	if body.Output == nil {
		o.b = append(o.b, "null"...)
	} else {
		o.b = append(o.b, '[')
		for i := range body.Output {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			var e error
			o.b, e = body.Output[i].appendJSON(o.b)
			err = firstError(err, e)
		}
		o.b = append(o.b, ']')
	}
	err = firstError(err, o.raw("metadata", body.Metadata))
	o.usage("usage", body.Usage)
	err = firstError(err, o.rawOmit("result", body.Result))
	if body.Error != nil {
		o.key("error")
		p := beginObject(o.b)
		p.str("code", body.Error.Code)
		o.b = p.end()
	}
	if ra := body.RequiredAction; ra != nil {
		o.key("requiredAction")
		p := beginObject(o.b)
		p.str("type", ra.Type)
		p.str("id", ra.ID)
		p.str("callId", ra.CallID)
		p.strOmit("action", ra.Action)
		p.strOmit("message", ra.Message)
		p.strOmit("name", ra.Name)
		err = firstError(err, p.rawOmit("arguments", ra.Arguments))
		p.str("expiresAt", ra.ExpiresAt)
		o.b = p.end()
	}
	o.strOmit("approvalId", body.ApprovalID)
	o.strOmit("clientToolId", body.ClientToolID)
	return err
}

// appendJSON appends one output item with the fields its type carries.
func (it *OutputItem) appendJSON(b []byte) ([]byte, error) {
	o := beginObject(b)
	o.str("type", it.Type)
	o.strOmit("role", it.Role)
	if len(it.Content) > 0 {
		o.key("content")
		o.b = append(o.b, '[')
		for i, part := range it.Content {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			p := beginObject(o.b)
			p.str("type", part.Type)
			p.str("text", part.Text)
			o.b = p.end()
		}
		o.b = append(o.b, ']')
	}
	o.strOmit("agent", it.Agent)
	o.strOmit("activity", it.Activity)
	o.strOmit("target", it.Target)
	o.strOmit("code", it.Code)
	o.strOmit("framework", it.Framework)
	o.usage("usage", it.Usage)
	o.strOmit("model", it.Model)
	o.strOmit("provider", it.Provider)
	o.strOmit("finishReason", it.FinishReason)
	err := firstError(
		o.rawOmit("raw", it.Raw),
		o.rawOmit("value", it.Value),
	)
	o.strOmit("id", it.ID)
	o.strOmit("name", it.Name)
	err = firstError(err, o.rawOmit("arguments", it.Arguments))
	o.strOmit("callId", it.CallID)
	err = firstError(err, o.rawOmit("output", it.Output))
	if it.Type == OutputArtifact {
		o.str("artifactId", it.ArtifactID)
		o.strOmit("description", it.Description)
		o.key("parts")
		var pe error
		o.b, pe = appendArtifactParts(o.b, it.Parts)
		err = firstError(err, pe, o.rawOmit("metadata", it.ArtifactMetadata))
	}
	return o.end(), err
}
