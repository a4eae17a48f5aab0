package runtime

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The turn path writes its JSON (events, envelopes, receipts) by appending
// to one byte slice, field by field, instead of through encoding/json's
// reflection: one encode per event, no intermediate values. The output is
// byte for byte what encoding/json writes for the same values (HTML
// characters escaped, invalid UTF-8 replaced, raw JSON compacted); the
// tests compare the two on generated values.

// object writes one JSON object's members in order.
type object struct {
	b     []byte
	count int
}

// beginObject starts an object at the end of b.
func beginObject(b []byte) object { return object{b: append(b, '{')} }

// end ends the object and returns the bytes.
func (o object) end() []byte { return append(o.b, '}') }

// key writes a member's key (and the comma before it).
func (o *object) key(name string) {
	if o.count > 0 {
		o.b = append(o.b, ',')
	}
	o.count++
	o.b = append(o.b, '"')
	o.b = append(o.b, name...) // keys are constants without escapes
	o.b = append(o.b, '"', ':')
}

func (o *object) str(name, v string) {
	o.key(name)
	o.b = appendJSONString(o.b, v)
}

// strOmit writes the member unless v is empty (omitempty).
func (o *object) strOmit(name, v string) {
	if v != "" {
		o.str(name, v)
	}
}

func (o *object) int(name string, v int) {
	o.key(name)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
}

// raw writes raw JSON as encoding/json writes a json.RawMessage: null when
// nil, compacted and HTML-escaped otherwise.
func (o *object) raw(name string, v json.RawMessage) error {
	o.key(name)
	var err error
	o.b, err = appendRawJSON(o.b, v)
	return err
}

// rawOmit writes the member unless v is empty (omitempty).
func (o *object) rawOmit(name string, v json.RawMessage) error {
	if len(v) == 0 {
		return nil
	}
	return o.raw(name, v)
}

func (o *object) usage(name string, u *Usage) {
	if u == nil {
		return
	}
	o.key(name)
	o.b = u.appendJSON(o.b)
}

// appendJSON writes the usage as encoding/json does.
func (u *Usage) appendJSON(b []byte) []byte {
	o := beginObject(b)
	o.int("inputTokens", u.InputTokens)
	o.int("outputTokens", u.OutputTokens)
	o.int("totalTokens", u.TotalTokens)
	return o.end()
}

// appendRawJSON appends raw JSON the way encoding/json writes a
// json.RawMessage. The common case (an empty object, the default
// metadata) takes no work.
func appendRawJSON(b []byte, v json.RawMessage) ([]byte, error) {
	switch {
	case v == nil:
		return append(b, "null"...), nil
	case string(v) == "{}" || string(v) == "null" || string(v) == "true" || string(v) == "false":
		return append(b, v...), nil
	}
	enc, err := json.Marshal(v) // validates, compacts and escapes HTML as encoding/json does
	if err != nil {
		return b, err
	}
	return append(b, enc...), nil
}

const hexDigits = "0123456789abcdef"

// htmlSafe reports whether an ASCII byte needs no escape in a JSON string
// that encoding/json writes with HTML escaping (its default).
func htmlSafe(c byte) bool {
	return c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

// appendJSONString appends s as a JSON string exactly as encoding/json
// does: HTML characters and control characters escaped, invalid UTF-8
// replaced by U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe(c) {
				i++
				continue
			}
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
