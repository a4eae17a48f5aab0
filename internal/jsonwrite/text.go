package jsonwrite

import (
	"encoding/json"
	"unicode/utf8"
)

// AppendRaw writes raw JSON as encoding/json writes a json.RawMessage:
// compacted, with HTML characters escaped. Raw JSON that is already so
// (the usual case: IDs, the metadata harnest writes) is copied as it is;
// anything else goes through encoding/json, which also reports invalid
// JSON.
func AppendRaw(b []byte, v json.RawMessage) ([]byte, error) {
	switch {
	case v == nil:
		return append(b, "null"...), nil
	case string(v) == "{}" || string(v) == "null" || string(v) == "true" || string(v) == "false":
		return append(b, v...), nil // the common metadata, with no work
	}
	if compactSafe(v) && json.Valid(v) {
		return append(b, v...), nil
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, enc...), nil
}

// compactSafe reports whether JSON text needs no change to be written as
// encoding/json writes it: ASCII only, no space between tokens, no HTML
// character.
func compactSafe(v []byte) bool {
	inString := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&':
			return false
		case inString && c == '\\':
			i++ // the escaped byte
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// htmlSafe reports whether an ASCII byte needs no escape in a JSON string
// that encoding/json writes with HTML escaping (its default).
func htmlSafe(c byte) bool {
	return c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

// plainBytes marks the bytes AppendString copies as they are: the
// htmlSafe ASCII bytes (not the bytes of a multi-byte character, which
// are checked as UTF-8). One load a byte instead of six comparisons.
var plainBytes = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = htmlSafe(byte(c))
	}
	return t
}()

// AppendString appends s as a JSON string exactly as encoding/json
// does: HTML characters and control characters escaped, invalid UTF-8
// replaced by U+FFFD, U+2028 and U+2029 escaped.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for i < len(s) && plainBytes[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
