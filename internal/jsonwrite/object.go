package jsonwrite

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// Object writes one JSON object's members in order. B is the text so
// far; a caller may append a member's value to it directly after Key.
type Object struct {
	B     []byte
	count int
}

// Begin starts an object at the end of b.
func Begin(b []byte) Object { return Object{B: append(b, '{')} }

// End ends the object and returns the text.
func (o Object) End() []byte { return append(o.B, '}') }

// Key writes a member's key (a constant without escapes) and the comma
// before it.
func (o *Object) Key(name string) {
	if o.count > 0 {
		o.B = append(o.B, ',')
	}
	o.count++
	o.B = append(o.B, '"')
	o.B = append(o.B, name...)
	o.B = append(o.B, '"', ':')
}

// Str writes a string member.
func (o *Object) Str(name, v string) {
	o.Key(name)
	o.B = AppendString(o.B, v)
}

// StrOmit writes the member unless v is empty (omitempty).
func (o *Object) StrOmit(name, v string) {
	if v != "" {
		o.Str(name, v)
	}
}

// Int writes an integer member.
func (o *Object) Int(name string, v int) {
	o.Key(name)
	o.B = strconv.AppendInt(o.B, int64(v), 10)
}

// Raw writes raw JSON as encoding/json writes a json.RawMessage: null
// when nil, compacted and HTML-escaped otherwise; an error when it is not
// JSON.
func (o *Object) Raw(name string, v json.RawMessage) error {
	o.Key(name)
	var err error
	o.B, err = AppendRaw(o.B, v)
	return err
}

// RawOmit writes the member unless v is empty (omitempty).
func (o *Object) RawOmit(name string, v json.RawMessage) error {
	if len(v) == 0 {
		return nil
	}
	return o.Raw(name, v)
}

// BytesOmit writes bytes as encoding/json writes a []byte (a standard
// base64 string) unless they are empty (omitempty).
func (o *Object) BytesOmit(name string, v []byte) {
	if len(v) == 0 {
		return
	}
	o.Key(name)
	o.B = append(o.B, '"')
	o.B = base64.StdEncoding.AppendEncode(o.B, v)
	o.B = append(o.B, '"')
}

// StringsOmit writes a list of strings unless it is empty (omitempty).
func (o *Object) StringsOmit(name string, vs []string) {
	if len(vs) == 0 {
		return
	}
	o.Key(name)
	o.B = append(o.B, '[')
	for i, v := range vs {
		if i > 0 {
			o.B = append(o.B, ',')
		}
		o.B = AppendString(o.B, v)
	}
	o.B = append(o.B, ']')
}
