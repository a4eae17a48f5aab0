package a2a

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/harnest/harnest/runtime"
)

// An append-based JSON writer for the answer most sends get, a 1.0 direct
// message (writeRPCMessage): field by field into one byte slice, instead
// of encoding/json's reflection over an interface. The output is byte for
// byte what encoding/json writes for the same values (HTML characters
// escaped, invalid UTF-8 replaced, raw JSON compacted);
// jsonwrite_test.go compares the two on generated values.

// jsonObject writes one object's members in order.
type jsonObject struct {
	b     []byte
	count int
}

func beginJSONObject(b []byte) jsonObject { return jsonObject{b: append(b, '{')} }

func (o jsonObject) end() []byte { return append(o.b, '}') }

// key writes a member's key (a constant without escapes) and the comma
// before it.
func (o *jsonObject) key(name string) {
	if o.count > 0 {
		o.b = append(o.b, ',')
	}
	o.count++
	o.b = append(o.b, '"')
	o.b = append(o.b, name...)
	o.b = append(o.b, '"', ':')
}

func (o *jsonObject) str(name, v string) {
	o.key(name)
	o.b = appendJSONString(o.b, v)
}

// strOmit writes the member unless v is empty (omitempty).
func (o *jsonObject) strOmit(name, v string) {
	if v != "" {
		o.str(name, v)
	}
}

// rawOmit writes raw JSON unless it is empty (omitempty).
func (o *jsonObject) rawOmit(name string, v json.RawMessage) error {
	if len(v) == 0 {
		return nil
	}
	o.key(name)
	var err error
	o.b, err = appendRawJSON(o.b, v)
	return err
}

// stringsOmit writes a list of strings unless it is empty (omitempty).
func (o *jsonObject) stringsOmit(name string, vs []string) {
	if len(vs) == 0 {
		return
	}
	o.key(name)
	o.b = append(o.b, '[')
	for i, v := range vs {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = appendJSONString(o.b, v)
	}
	o.b = append(o.b, ']')
}

// answerBuffers hold the bytes of direct-message answers while they are
// written (a send is answered often; its buffer is reused).
var answerBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooledAnswer bounds the buffers answerBuffers keeps.
const maxPooledAnswer = 64 << 10

// jsonContentType is the Content-Type of JSON answers, one shared value
// (header values are only read once set).
var jsonContentType = []string{"application/json"}

// writeRPCMessage answers a 1.0 send with its direct message: what
// writeRPC writes for StreamEvent{Message: m}, appended without reflection
// (jsonwrite.go).
func writeRPCMessage(w http.ResponseWriter, id json.RawMessage, m *Message) {
	buf := answerBuffers.Get().(*[]byte)
	b := append((*buf)[:0], `{"jsonrpc":"2.0","id":`...)
	b, err := appendRawJSON(b, idOrNull(id))
	if err == nil {
		b = append(b, `,"result":{"message":`...)
		b, err = appendMessage(b, m)
	}
	if err != nil { // encoding/json writes the answer to what does not encode
		answerBuffers.Put(buf)
		writeRPC(w, rpcResponse{ID: id, Result: StreamEvent{Message: m}})
		return
	}
	b = append(b, '}', '}')
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	if cap(b) <= maxPooledAnswer { // a rare large answer is not kept
		*buf = b[:0]
		answerBuffers.Put(buf)
	}
}

// appendMessage writes a message as encoding/json writes Message.
func appendMessage(b []byte, m *Message) ([]byte, error) {
	o := beginJSONObject(b)
	o.str("messageId", m.MessageID)
	o.strOmit("contextId", m.ContextID)
	o.strOmit("taskId", m.TaskID)
	o.str("role", m.Role)
	o.key("parts")
	if m.Parts == nil {
		o.b = append(o.b, "null"...)
	} else {
		o.b = append(o.b, '[')
		for i := range m.Parts {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			var err error
			if o.b, err = appendPart(o.b, &m.Parts[i]); err != nil {
				return b, err
			}
		}
		o.b = append(o.b, ']')
	}
	if err := o.rawOmit("metadata", m.Metadata); err != nil {
		return b, err
	}
	o.stringsOmit("extensions", m.Extensions)
	o.stringsOmit("referenceTaskIds", m.ReferenceTaskIDs)
	return o.end(), nil
}

// appendPart writes a part as encoding/json writes Part.
func appendPart(b []byte, p *Part) ([]byte, error) {
	o := beginJSONObject(b)
	if p.Text != nil {
		o.str("text", *p.Text)
	}
	if len(p.Raw) > 0 {
		o.key("raw")
		o.b = append(o.b, '"')
		o.b = base64.StdEncoding.AppendEncode(o.b, p.Raw)
		o.b = append(o.b, '"')
	}
	o.strOmit("url", p.URL)
	if err := o.rawOmit("data", p.Data); err != nil {
		return b, err
	}
	o.strOmit("filename", p.Filename)
	o.strOmit("mediaType", p.MediaType)
	if err := o.rawOmit("metadata", p.Metadata); err != nil {
		return b, err
	}
	return o.end(), nil
}

// appendReplyMeta writes a direct message's metadata as encoding/json
// writes replyMeta's struct: {"harnest":{"responseId","usage"?}}.
func appendReplyMeta(b []byte, responseID string, usage *runtime.Usage) []byte {
	b = append(b, `{"harnest":{"responseId":`...)
	b = appendJSONString(b, responseID)
	if usage != nil {
		b = append(b, `,"usage":{"inputTokens":`...)
		b = strconv.AppendInt(b, int64(usage.InputTokens), 10)
		b = append(b, `,"outputTokens":`...)
		b = strconv.AppendInt(b, int64(usage.OutputTokens), 10)
		b = append(b, `,"totalTokens":`...)
		b = strconv.AppendInt(b, int64(usage.TotalTokens), 10)
		b = append(b, '}')
	}
	return append(b, '}', '}')
}

// appendRawJSON writes raw JSON as encoding/json writes a json.RawMessage:
// compacted, with HTML characters escaped. Raw JSON that is already so
// (the usual case: IDs, the metadata harnest writes) is copied as it is;
// anything else goes through encoding/json, which also reports invalid
// JSON.
func appendRawJSON(b []byte, v json.RawMessage) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
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

// appendJSONString appends s as a JSON string exactly as encoding/json
// does: HTML and control characters escaped, invalid UTF-8 replaced by
// U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
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
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
