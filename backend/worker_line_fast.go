package backend

import "unicode/utf8"

// The fast path of decodeWorkerLine for the lines a turn streams most:
// text and thinking deltas, and done. Profiled under SSE turns of 20 deltas
// from a Node worker, decoding lines through a map of json.RawMessage was
// about 29 % of the server's CPU and 15 allocations a line; this path
// takes a line that is a flat object of plain strings (no escapes, no
// control characters, valid UTF-8) in one pass with one allocation (the
// delta) and leaves every other line, and every line it would have to
// judge, to decodeWorkerLine: what it accepts decodes exactly as there.

// decodeHotLine decodes b (trimmed) if it is such a line of type text,
// thinking or done; id is the turn's id, whose string is reused when the
// line's is the same. ok is false for any other line.
func decodeHotLine(b []byte, id string) (m workerMessage, ok bool) {
	if len(b) < 2 || b[0] != '{' || !utf8.Valid(b) {
		return workerMessage{}, false
	}
	var typ, lineID, delta, agent []byte
	hasDelta := false
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		return workerMessage{}, false // {}: decodeWorkerLine says what is missing
	}
	for {
		key, next, ok := plainString(b, i)
		if !ok {
			return workerMessage{}, false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return workerMessage{}, false
		}
		value, next, ok := plainString(b, skipSpace(b, i+1))
		if !ok {
			return workerMessage{}, false
		}
		switch string(key) { // no allocation: the compiler compares in place
		case "type":
			typ = value
		case "id":
			lineID = value
		case "delta":
			delta, hasDelta = value, true
		case "agent":
			agent = value
		}
		i = skipSpace(b, next)
		if i >= len(b) {
			return workerMessage{}, false
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return workerMessage{}, false
		}
		i = skipSpace(b, i+1)
	}
	if skipSpace(b, i+1) != len(b) || len(lineID) == 0 {
		return workerMessage{}, false
	}
	switch string(typ) {
	case wText:
		m.Type = wText
	case wThinking:
		m.Type = wThinking
	case wDone:
		m.Type = wDone
	default:
		return workerMessage{}, false
	}
	if m.Type != wDone {
		if !hasDelta {
			return workerMessage{}, false
		}
		m.Delta = string(delta)
		if agent != nil {
			m.Agent = string(agent)
		}
	}
	if string(lineID) == id {
		m.ID = id
	} else {
		m.ID = string(lineID)
	}
	return m, true
}

// plainString reads the JSON string at b[i]: its content and the index
// after its closing quote. ok is false unless it is a string with no
// escape and no control character.
func plainString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipSpace is the index of the first byte at or after i that is not JSON
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
