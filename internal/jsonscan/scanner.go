package jsonscan

import (
	"strings"
	"unicode"
	"unicode/utf16"
)

// Scanner reads JSON text that is already known to be UTF-8, one token at
// a time, without building anything it is not asked for. Every method
// reports false both for JSON that is invalid and for JSON it does not
// handle (nesting deeper than MaxDepth): its callers then decode the text
// the general way (encoding/json), which finds the exact error. Values it
// returns are slices of the text, never copies. The zero Scanner reads
// nothing; Reset gives it a text.
type Scanner struct {
	b []byte
	i int // the next byte to read
}

// MaxDepth bounds the nesting of the values the scanner checks; deeper
// values (valid up to encoding/json's 10,000) are refused.
const MaxDepth = 64

// Reset makes the scanner read text from its start.
func (s *Scanner) Reset(text []byte) { s.b, s.i = text, 0 }

// Pos is how many bytes of the text have been read.
func (s *Scanner) Pos() int { return s.i }

// Text returns the text between two positions (see Pos).
func (s *Scanner) Text(from, to int) []byte { return s.b[from:to] }

// AtEnd skips whitespace and reports whether the text ends there.
func (s *Scanner) AtEnd() bool {
	s.Space()
	return s.i == len(s.b)
}

// NextByte skips whitespace and returns the next byte without reading it
// (0 at the end).
func (s *Scanner) NextByte() byte {
	s.Space()
	return s.Peek()
}

// Skip reads n bytes (a token the caller has looked at with NextByte).
func (s *Scanner) Skip(n int) { s.i = min(s.i+n, len(s.b)) }

// Space skips JSON whitespace.
func (s *Scanner) Space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Peek returns the next byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// Next consumes c (after whitespace) and reports whether it was there.
func (s *Scanner) Next(c byte) bool {
	s.Space()
	if s.Peek() != c {
		return false
	}
	s.i++
	return true
}

// Literal consumes the word w (true, false or null).
func (s *Scanner) Literal(w string) bool {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w { // compared without a copy
		return false
	}
	s.i += len(w)
	return true
}

// Bool reads true or false.
func (s *Scanner) Bool() (v, ok bool) {
	switch s.Peek() {
	case 't':
		return true, s.Literal("true")
	case 'f':
		return false, s.Literal("false")
	}
	return false, false
}

// Str reads a string token. It returns what lies between the quotes and
// whether that contains escapes (StringValue decodes it).
func (s *Scanner) Str() (raw []byte, escaped, ok bool) {
	if s.Peek() != '"' {
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

// StringValue reads a string token as a Go string.
func (s *Scanner) StringValue() (string, bool) {
	raw, escaped, ok := s.Str()
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
// pair becomes U+FFFD. raw has been checked by Str.
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

// Value skips one JSON value of any kind, checking it, and returns its
// bytes.
func (s *Scanner) Value() ([]byte, bool) {
	start := s.i
	ok := s.skipValue(0)
	return s.b[start:s.i], ok
}

func (s *Scanner) skipValue(depth int) bool {
	switch c := s.Peek(); {
	case c == '"':
		_, _, ok := s.Str()
		return ok
	case c == '{' || c == '[':
		return depth < MaxDepth && s.skipContainer(depth+1, c == '{')
	case c == 't':
		return s.Literal("true")
	case c == 'f':
		return s.Literal("false")
	case c == 'n':
		return s.Literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number()
	}
	return false
}

// skipContainer skips an object (members "key": value) or an array
// (values); the next byte is its '{' or '['.
func (s *Scanner) skipContainer(depth int, object bool) bool {
	end := byte(']')
	if object {
		end = '}'
	}
	s.i++
	if s.Next(end) {
		return true
	}
	for {
		s.Space()
		if object {
			if _, _, ok := s.Str(); !ok || !s.Next(':') {
				return false
			}
			s.Space()
		}
		if !s.skipValue(depth) {
			return false
		}
		if s.Next(end) {
			return true
		}
		if !s.Next(',') {
			return false
		}
	}
}

// number skips a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) number() bool {
	if s.Peek() == '-' {
		s.i++
	}
	switch c := s.Peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.Peek() == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if c := s.Peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.Peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits skips one or more digits and reports whether there was one.
func (s *Scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
