package neutral

import (
	"strings"
	"unicode"
	"unicode/utf16"
)

// scanner reads JSON from a body that is already known to be UTF-8, one
// token at a time, without building anything it is not asked for. It is
// the base of the fast decoding of POST /responses (decode_request.go):
// every method reports false both for JSON that is invalid and for JSON it
// does not handle (nesting deeper than maxScanDepth), and the caller then
// decodes the body the general way, which finds the exact error.
type scanner struct {
	b []byte
	i int // the next byte to read
}

// maxScanDepth bounds the nesting of the values the scanner checks; deeper
// values (valid up to encoding/json's 10,000) take the general path.
const maxScanDepth = 64

// space skips JSON whitespace.
func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// next consumes c (after whitespace) and reports whether it was there.
func (s *scanner) next(c byte) bool {
	s.space()
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// literal consumes the word w (true, false or null).
func (s *scanner) literal(w string) bool {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w { // compared without a copy
		return false
	}
	s.i += len(w)
	return true
}

// boolean reads true or false.
func (s *scanner) boolean() (v, ok bool) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, false
}

// str reads a string token. It returns what lies between the quotes and
// whether that contains escapes (decode it with unescape then).
func (s *scanner) str() (raw []byte, escaped, ok bool) {
	if s.peek() != '"' {
		return nil, false, false
	}
	start := s.i + 1
	for i := start; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			s.i = i + 1
			return s.b[start:i], escaped, true
		case c < 0x20:
			return nil, false, false // control characters must be escaped
		case c == '\\':
			n := escapeLen(s.b[i:])
			if n == 0 {
				return nil, false, false
			}
			escaped = true
			i += n - 1
		}
	}
	return nil, false, false // no closing quote
}

// escapeLen returns the length of the escape that b starts with (b[0] is
// the backslash), or 0 when it is not a valid JSON escape.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) >= 6 && hex4(b[2:6]) >= 0 {
			return 6
		}
	}
	return 0
}

// hex4 decodes four hex digits, or returns -1.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// stringValue reads a string token as a Go string.
func (s *scanner) stringValue() (string, bool) {
	raw, escaped, ok := s.str()
	if !ok {
		return "", false
	}
	if escaped {
		return unescape(raw), true
	}
	return string(raw), true
}

// unescape decodes the contents of a string token that has escapes, as
// encoding/json does: a \u escape of a surrogate that is not half of a
// pair becomes U+FFFD. raw has been checked by str.
func unescape(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		switch raw[i+1] {
		case 'u':
			r := hex4(raw[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				next := rune(-1)
				if len(raw) >= i+6 && raw[i] == '\\' && raw[i+1] == 'u' {
					next = hex4(raw[i+2:])
				}
				if pair := utf16.DecodeRune(r, next); pair != unicode.ReplacementChar {
					r = pair
					i += 6
				} else {
					r = unicode.ReplacementChar
				}
			}
			b.WriteRune(r)
			continue
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default: // '"', '\\', '/'
			b.WriteByte(raw[i+1])
		}
		i += 2
	}
	return b.String()
}

// value skips one JSON value of any kind, checking it, and returns its
// bytes.
func (s *scanner) value() ([]byte, bool) {
	start := s.i
	ok := s.skipValue(0)
	return s.b[start:s.i], ok
}

func (s *scanner) skipValue(depth int) bool {
	switch c := s.peek(); {
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == '{':
		return depth < maxScanDepth && s.skipObject(depth+1)
	case c == '[':
		return depth < maxScanDepth && s.skipArray(depth+1)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number()
	}
	return false
}

// skipObject skips an object; the next byte is its '{'.
func (s *scanner) skipObject(depth int) bool {
	s.i++
	if s.next('}') {
		return true
	}
	for {
		s.space()
		if _, _, ok := s.str(); !ok || !s.next(':') {
			return false
		}
		s.space()
		if !s.skipValue(depth) {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// skipArray skips an array; the next byte is its '['.
func (s *scanner) skipArray(depth int) bool {
	s.i++
	if s.next(']') {
		return true
	}
	for {
		s.space()
		if !s.skipValue(depth) {
			return false
		}
		if s.next(']') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// number skips a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits skips one or more digits and reports whether there was one.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
