package memstore

// responseSet is a space's responses by ID. A session's first response is
// held in the set itself (so in the space, with no map and no allocation
// of its own): most sessions are made by their first turn, and many have
// only a few. The others go to a map made when a second response arrives.
type responseSet struct {
	firstID string               // "" while the first slot is empty
	first   response             // the response firstID names
	more    map[string]*response // the responses other than first; nil until needed
}

// get returns the response with that ID (nil when there is none).
func (rs *responseSet) get(id string) *response {
	if id != "" && id == rs.firstID {
		return &rs.first
	}
	return rs.more[id] // nil for a nil map
}

// getOrMake returns the response with that ID, made if missing.
func (rs *responseSet) getOrMake(id string) *response {
	if r := rs.get(id); r != nil {
		return r
	}
	// The first slot, when empty (an empty ID, which the runtime never
	// makes, goes to the map: "" marks the slot empty).
	if rs.firstID == "" && id != "" {
		rs.firstID = id
		return &rs.first
	}
	if rs.more == nil {
		rs.more = map[string]*response{}
	}
	r := &response{}
	rs.more[id] = r
	return r
}

// len returns the number of responses.
func (rs *responseSet) len() int {
	n := len(rs.more)
	if rs.firstID != "" {
		n++
	}
	return n
}

// each calls f with every response.
func (rs *responseSet) each(f func(r *response)) {
	if rs.firstID != "" {
		f(&rs.first)
	}
	for _, r := range rs.more {
		f(r)
	}
}

// dropIf removes every response for which gone returns true.
func (rs *responseSet) dropIf(gone func(r *response) bool) {
	if rs.firstID != "" && gone(&rs.first) {
		// The slot's version moves on rather than back to 0: a sweeper that
		// read the dropped response's receipt must see that the response in
		// this slot is not that one any more (as a new pointer tells it for
		// the others).
		rs.firstID = ""
		rs.first = response{version: rs.first.version + 1}
	}
	for id, r := range rs.more {
		if gone(r) {
			delete(rs.more, id)
		}
	}
}
