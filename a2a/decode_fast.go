package a2a

import (
	"bytes"
	"encoding/json"
)

// Fast decoders of the requests most calls are: the JSON-RPC envelope,
// and a 1.0 send whose message has text, URL or data parts. They read the
// JSON once, with no reflection, and fill the same structs the generic
// decoders do. Whenever the request holds something they do not handle —
// a key with an escape or in another case (encoding/json matches keys
// case-insensitively), a duplicate key, a snake_case key, a string with an
// escape, a value of an unexpected type, a field they leave to the
// generic decoder — they give up (ok false) and the caller runs the
// generic decoder, which also writes every error. What they accept they
// decode exactly as encoding/json does; decode_fast_test.go compares the
// two.

// rawEnvelope is a JSON-RPC request's members, as sent.
type rawEnvelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
}

var envelopeFields = []string{"jsonrpc", "id", "method", "params"}

// readEnvelope reads a JSON-RPC request's members; the values are slices
// of body (the caller reads them while the request lasts). parseRPC has
// checked that body is UTF-8.
func readEnvelope(body []byte) (env rawEnvelope, ok bool) {
	if !json.Valid(body) {
		return env, false
	}
	r := readerOf(body)
	ok = r.members(envelopeFields, func(key []byte) (bit uint, known, read bool) {
		var dst *json.RawMessage
		switch string(key) {
		case "jsonrpc":
			dst, bit = &env.JSONRPC, 0
		case "id":
			dst, bit = &env.ID, 1
		case "method":
			dst, bit = &env.Method, 2
		case "params":
			dst, bit = &env.Params, 3
		default:
			return 0, false, false
		}
		*dst = r.value()
		return bit, true, true
	})
	return env, ok && !r.failed && r.AtEnd()
}

// decodeEnvelope reads a JSON-RPC request's members: the common request
// without reflection (readEnvelope), any other with encoding/json; false
// when the text is not a JSON object.
func decodeEnvelope(t []byte) (rawEnvelope, bool) {
	if raw, ok := readEnvelope(t); ok {
		return raw, true
	}
	var raw rawEnvelope
	return raw, json.Unmarshal(t, &raw) == nil
}

// methodOf reads the method member; false when it is not a string.
func methodOf(raw json.RawMessage) (string, bool) {
	if name, ok := plainMethod(raw); ok {
		return name, true
	}
	var name string
	return name, json.Unmarshal(raw, &name) == nil
}

// methodNames maps every method name to itself, so that a request's
// method needs no new string.
var methodNames = func() map[string]string {
	out := map[string]string{}
	for _, set := range []map[string]bool{methods10, methods03} {
		for name := range set {
			out[name] = name
		}
	}
	return out
}()

// plainMethod reads a method that is a JSON string without escapes; ok
// is false for anything else (encoding/json reads it then).
func plainMethod(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return "", false
	}
	name := raw[1 : len(raw)-1]
	if known, ok := methodNames[string(name)]; ok {
		return known, true
	}
	return string(name), true
}

var (
	sendFields    = []string{"message", "configuration", "metadata"}
	messageFields = []string{"messageId", "contextId", "taskId", "role", "parts", "metadata", "extensions", "referenceTaskIds"}
	partFields    = []string{"text", "raw", "url", "data", "filename", "mediaType", "metadata"}
)

// readSend10 reads a 1.0 SendMessageRequest that has a message and no
// configuration, as decodeSend10's generic path would before its checks.
// checked says raw is known to be valid JSON in UTF-8 (the params of a
// request parseRPC accepted); otherwise it is checked here.
func readSend10(raw []byte, checked bool) (req sendRequest, ok bool) {
	if hasSnakeKey(raw) {
		return req, false // camelKeys renames them first
	}
	r := readerOf(raw)
	if !checked {
		if r, ok = newJSONReader(raw); !ok {
			return req, false
		}
	}
	hasMessage := false
	ok = r.members(sendFields, func(key []byte) (bit uint, known, read bool) {
		switch string(key) {
		case "message":
			hasMessage = true
			return 0, true, r.readMessage(&req.Message)
		case "metadata":
			req.Metadata = r.rawValue()
			return 1, true, true
		}
		return 0, false, false // configuration goes the generic way
	})
	return req, ok && hasMessage && !r.failed
}

// readMessage reads a message object into m.
func (r *jsonReader) readMessage(m *Message) bool {
	return r.members(messageFields, func(key []byte) (bit uint, known, read bool) {
		switch string(key) {
		case "messageId":
			return 0, true, r.stringValue(&m.MessageID)
		case "contextId":
			return 1, true, r.stringValue(&m.ContextID)
		case "taskId":
			return 2, true, r.stringValue(&m.TaskID)
		case "role":
			return 3, true, r.stringValue(&m.Role)
		case "parts":
			return 4, true, r.readParts(&m.Parts)
		case "metadata":
			m.Metadata = r.rawValue()
			return 5, true, true
		}
		return 0, false, false // extensions and referenceTaskIds go the generic way
	})
}

// readParts reads an array of parts into parts.
func (r *jsonReader) readParts(parts *[]Part) bool {
	if !r.Enter('[') {
		return false
	}
	out := []Part{} // encoding/json makes an empty array an empty slice, not nil
	for r.NextItem() {
		var p Part
		if !r.readPart(&p) {
			return false
		}
		out = append(out, p)
	}
	*parts = out
	return true
}

// readPart reads a part object (one without raw bytes) into p.
func (r *jsonReader) readPart(p *Part) bool {
	return r.members(partFields, func(key []byte) (bit uint, known, read bool) {
		switch string(key) {
		case "text":
			p.Text, read = r.textValue()
			return 0, true, read
		case "url":
			return 1, true, r.stringValue(&p.URL)
		case "filename":
			return 2, true, r.stringValue(&p.Filename)
		case "mediaType":
			return 3, true, r.stringValue(&p.MediaType)
		case "data":
			p.Data = r.rawValue()
			return 4, true, true
		case "metadata":
			p.Metadata = r.rawValue()
			return 5, true, true
		}
		return 0, false, false // raw (base64) goes the generic way
	})
}

// members reads an object's members in turn. member reads the value of a
// key it knows and says its bit (a second member of one bit gives up) and
// whether the value was read; a key member does not know that names none
// of fields, in any case, is skipped, as encoding/json ignores it. An
// escaped key, or another key, gives up: the generic decoder reads it.
func (r *jsonReader) members(fields []string, member func(key []byte) (bit uint, known, read bool)) bool {
	if !r.Enter('{') {
		return false
	}
	var seen fieldSet
	for {
		key, escaped, more := r.NextKey()
		if !more {
			return true
		}
		if escaped {
			return false
		}
		bit, known, read := member(key)
		switch {
		case known && (!read || !seen.first(bit)):
			return false
		case !known && !otherField(key, fields):
			return false
		case !known:
			r.value()
		}
	}
}

// textValue reads a *string member as encoding/json would: null is nil.
func (r *jsonReader) textValue() (*string, bool) {
	if r.NextByte() == 'n' {
		r.value()
		return nil, true
	}
	s := new(string)
	return s, r.stringValue(s)
}

// otherField reports whether key names none of the fields, in any case:
// encoding/json would ignore it.
func otherField(key []byte, fields []string) bool {
	for _, f := range fields {
		if bytes.EqualFold(key, []byte(f)) {
			return false
		}
	}
	return true
}

// fieldSet remembers the fields an object has had, one bit each, to
// refuse a duplicate (encoding/json would merge or overwrite; the generic
// path does that).
type fieldSet uint16

// first records the field and reports whether it is new.
func (s *fieldSet) first(bit uint) bool {
	if *s&(1<<bit) != 0 {
		return false
	}
	*s |= 1 << bit
	return true
}
