package runtime

// Keeping the first segment's events for a caller that does not stream
// (ResponseRequest.KeepEvents): it gets them with the outcome
// (Outcome.Events), typed, instead of reading the log back.

// keptRoom is how many events the kept list has room for at first: a
// short turn's.
const keptRoom = 4

// newResponse allocates a response; one that keeps its events gets the
// room for a short turn's in the same allocation, and that room (empty).
func newResponse(keep bool) (*Response, []Event) {
	if !keep {
		return &Response{}, nil
	}
	both := &struct {
		r    Response
		kept [keptRoom]Event
	}{}
	return &both.r, both.kept[:0]
}

// keep adds an event of the first segment; after its boundary event
// (response.completed or error) nothing more is kept. The caller holds
// r.mu.
func (r *Response) keep(e Event) {
	r.kept = append(r.kept, e)
	if e.Type == EventCompleted || e.Type == EventError {
		r.keeping = false
	}
}

// keptEvents stops keeping and returns what was kept (nil unless the
// request asked to keep them).
func (r *Response) keptEvents() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keeping = false
	return r.kept
}
