package a2a

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/harnest/harnest/internal/jsonscan"
)

// jsonReader walks JSON text token by token, for the fast decoders of the
// common requests (decode_fast.go), with the shared scanner
// (internal/jsonscan). It only reads text that json.Valid accepted and
// that is valid UTF-8 (see newJSONReader), so it meets no syntax error;
// a value nested deeper than the scanner reads sets failed, and the
// decoders then give up. Values are slices of the text, never copies.
type jsonReader struct {
	jsonscan.Scanner
	failed bool // a value could not be read: the decoder gives up
}

// newJSONReader returns a reader for text, or false when the text is not
// valid JSON in valid UTF-8 (the generic decoders report those).
func newJSONReader(text []byte) (jsonReader, bool) {
	if !utf8.Valid(text) || !json.Valid(text) {
		return jsonReader{}, false
	}
	return readerOf(text), true
}

// readerOf returns a reader for text already known to be valid JSON.
func readerOf(text []byte) jsonReader {
	var r jsonReader
	r.Reset(text)
	return r
}

// value reads the next value, whatever it is, and returns its text.
func (r *jsonReader) value() []byte {
	r.Space()
	v, ok := r.Value()
	if !ok {
		r.failed = true
	}
	return v
}

// stringValue reads a string member into dst as encoding/json would: a
// null leaves dst as it is. ok is false for any other value (the caller
// gives up).
func (r *jsonReader) stringValue(dst *string) bool {
	switch r.NextByte() {
	case 'n':
		r.value()
		return !r.failed
	case '"':
		at := r.Scanner // where the string starts
		s, escaped, ok := r.Str()
		switch {
		case !ok:
			return false
		case escaped: // rare: read again, decoding the escapes as encoding/json does
			r.Scanner = at
			v, ok := r.StringValue()
			*dst = v
			return ok
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
