package a2a

import (
	"encoding/json"
	"unicode/utf8"
)

// jsonReader walks JSON text token by token, for the fast decoders of the
// common requests (decode_fast.go). It only reads text that json.Valid
// accepted and that is valid UTF-8 (see newJSONReader), so it never meets
// a syntax error: after a key comes a colon, after a value a comma or the
// end of its object or array. It hands out slices of the text, never
// copies.
type jsonReader struct {
	b []byte
	i int
}

// newJSONReader returns a reader for text, or false when the text is not
// valid JSON in valid UTF-8 (the generic decoders report those).
func newJSONReader(text []byte) (jsonReader, bool) {
	if !utf8.Valid(text) || !json.Valid(text) {
		return jsonReader{}, false
	}
	return jsonReader{b: text}, true
}

func (r *jsonReader) skipSpace() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// next is the first byte of the next token (0 at the end of the text).
func (r *jsonReader) next() byte {
	r.skipSpace()
	if r.i == len(r.b) {
		return 0
	}
	return r.b[r.i]
}

// enter steps into the object or array that comes next; false when the
// next value is something else (and nothing was read).
func (r *jsonReader) enter(open byte) bool {
	if r.next() != open {
		return false
	}
	r.i++
	return true
}

// str reads a string token and returns what is between its quotes;
// escaped reports a backslash in it (the content is then not the string's
// value).
func (r *jsonReader) str() (content []byte, escaped bool) {
	r.skipSpace()
	start := r.i + 1 // after the opening quote
	for r.i = start; r.b[r.i] != '"'; r.i++ {
		if r.b[r.i] == '\\' {
			escaped = true
			r.i++ // the escaped byte, which may be a quote
		}
	}
	r.i++ // the closing quote
	return r.b[start : r.i-1], escaped
}

// nextKey moves to the next member of the object the reader is in, past
// its colon, and returns the member's key; ok is false at the end of the
// object (which is then read).
func (r *jsonReader) nextKey() (key []byte, escaped, ok bool) {
	if r.next() == ',' {
		r.i++
	}
	if r.next() == '}' {
		r.i++
		return nil, false, false
	}
	key, escaped = r.str()
	r.next() // the colon
	r.i++
	return key, escaped, true
}

// nextItem moves to the next item of the array the reader is in; false at
// the end of the array (which is then read).
func (r *jsonReader) nextItem() bool {
	if r.next() == ',' {
		r.i++
	}
	if r.next() == ']' {
		r.i++
		return false
	}
	return true
}

// value reads the next value, whatever it is, and returns its text.
func (r *jsonReader) value() []byte {
	r.skipSpace()
	start := r.i
	switch r.b[r.i] {
	case '"':
		r.str()
	case '{', '[':
		depth := 0
		for ; ; r.i++ {
			switch r.b[r.i] {
			case '"':
				r.str()
				r.i-- // the loop steps past the closing quote
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			if depth == 0 {
				r.i++
				break
			}
		}
	default: // a number, true, false or null
		for r.i < len(r.b) {
			switch r.b[r.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return r.b[start:r.i]
			}
			r.i++
		}
	}
	return r.b[start:r.i]
}

// stringValue reads a string member into dst as encoding/json would: a
// null leaves dst as it is. ok is false for any other value (the caller
// gives up).
func (r *jsonReader) stringValue(dst *string) bool {
	switch r.next() {
	case 'n':
		r.value()
		return true
	case '"':
		start := r.i
		s, escaped := r.str()
		if escaped { // rare: let encoding/json read the escapes
			var v string
			err := json.Unmarshal(r.b[start:r.i], &v)
			*dst = v
			return err == nil
		}
		*dst = knownString(s)
		return true
	}
	return false
}

// rawValue reads a json.RawMessage member as encoding/json would: a copy
// of the value's text (null included), so that the request's body is not
// kept alive by what the turn stores.
func (r *jsonReader) rawValue() json.RawMessage {
	return append(json.RawMessage(nil), r.value()...)
}

// knownString is s as a string, without an allocation for the values
// most requests carry.
func knownString(s []byte) string {
	switch string(s) {
	case "":
		return ""
	case roleUser:
		return roleUser
	case roleAgent:
		return roleAgent
	case "2.0":
		return "2.0"
	}
	return string(s)
}
