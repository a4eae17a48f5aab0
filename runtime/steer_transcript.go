package runtime

// Where a turn took steers, and the transcript of such a turn: the user's
// message, then the answer cut at each steer, with the steer as a user
// message between its pieces.

// steerMark is a steer the turn took: how much of the answer's text and
// of its output items came before it.
type steerMark struct {
	text    int // bytes of outputText
	items   int // output items
	content []byte
}

// markSteer records a steer taken now; the next text starts a new
// message item.
func (b *outputBuilder) markSteer(info *SteerInfo) {
	if info == nil {
		return
	}
	b.closeText()
	b.steers = append(b.steers, steerMark{text: len(b.text), items: len(b.items), content: info.Content})
}

// steerMarks returns the steers the turn took.
func (r *Response) steerMarks() []steerMark {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.steers
}

// steeredTranscript is transcriptMessages for a turn that took steers: the
// user message, then for each steer the answer's piece before it (left out
// when it has neither text nor tool activity) and the steer as a user
// message, then the rest of the answer.
func (r *Response) steeredTranscript(env Envelope, now string, steers []steerMark) [][]byte {
	text, output := env.OutputText, env.Output
	out := [][]byte{r.appendMessage(nil, "user", transcriptContent(r.turn), "", now)}
	fromText, fromItem := 0, 0
	for _, m := range steers {
		toText, toItem := min(m.text, len(text)), min(m.items, len(output))
		piece, tools := text[fromText:toText], toolActivity(output[fromItem:toItem])
		if piece != "" || len(tools) > 0 {
			out = append(out, r.appendMessage(nil, "assistant", nil, piece, now, tools...))
		}
		out = append(out, r.appendMessage(nil, "user", m.content, "", now))
		fromText, fromItem = toText, toItem
	}
	return append(out, r.appendMessage(nil, "assistant", nil, text[fromText:], now, toolActivity(output[fromItem:])...))
}
