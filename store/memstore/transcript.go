package memstore

import "slices"

// transcript is a session's messages, oldest first: their JSON one after
// another in byte chunks, and where each message ends. Neither holds a
// pointer (but for the short list of later chunks), so the garbage
// collector does not look into them.
//
// A chunk is never moved nor written again where it holds messages, so
// the slices handed out stay valid and a long transcript is never copied:
// when a step's messages do not fit in the last chunk, they go to a new
// one, twice as large as the last up to maxTranscriptChunk (or as large as
// the step). A session's first step costs two allocations (its chunk and
// the ends), a later step usually none.
type transcript struct {
	first []byte       // chunk 0: the first step's messages, and more while it has room
	more  [][]byte     // chunks 1, 2, ...; nil until needed
	ends  []messageEnd // ends[i] is where message i ends
}

// messageEnd is where a message ends: its chunk and the offset in it (a
// chunk holds less than 2 GiB, far more than any request carries).
type messageEnd struct {
	chunk, end int32
}

// maxTranscriptChunk is the size past which new chunks stop doubling.
const maxTranscriptChunk = 64 << 10

// len returns the number of messages.
func (t *transcript) len() int { return len(t.ends) }

// chunk returns chunk c.
func (t *transcript) chunk(c int32) []byte {
	if c == 0 {
		return t.first
	}
	return t.more[c-1]
}

// message returns message i's JSON: the stored bytes, capped so that an
// append by the caller cannot reach the next message.
func (t *transcript) message(i int) []byte {
	e := t.ends[i]
	start := int32(0)
	if i > 0 && t.ends[i-1].chunk == e.chunk {
		start = t.ends[i-1].end
	}
	return t.chunk(e.chunk)[start:e.end:e.end]
}

// append adds copies of msgs, all in one chunk.
func (t *transcript) append(msgs [][]byte) {
	size := 0
	for _, m := range msgs {
		size += len(m)
	}
	c := int32(len(t.more)) // the last chunk
	last := t.chunk(c)
	if cap(last)-len(last) < size && len(t.ends) > 0 {
		// No room in the last chunk (the first chunk of a transcript is
		// made here, of the step's size): a new one.
		c++
		last = make([]byte, 0, max(size, min(2*cap(last), maxTranscriptChunk)))
		t.more = append(t.more, nil)
	}
	last = slices.Grow(last, size)
	t.ends = slices.Grow(t.ends, len(msgs))
	for _, m := range msgs {
		last = append(last, m...)
		t.ends = append(t.ends, messageEnd{chunk: c, end: int32(len(last))})
	}
	if c == 0 {
		t.first = last
	} else {
		t.more[c-1] = last
	}
}
