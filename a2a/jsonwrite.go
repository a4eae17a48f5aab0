package a2a

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/harnest/harnest/internal/jsonwrite"
	"github.com/harnest/harnest/runtime"
)

// The answer most sends get, a 1.0 direct message (writeRPCMessage),
// written field by field with internal/jsonwrite instead of encoding/json's
// reflection over an interface: byte for byte what encoding/json writes
// (jsonwrite_test.go compares the two on generated values).

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
	b, err := jsonwrite.AppendRaw(b, idOrNull(id))
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
	o := jsonwrite.Begin(b)
	o.Str("messageId", m.MessageID)
	o.StrOmit("contextId", m.ContextID)
	o.StrOmit("taskId", m.TaskID)
	o.Str("role", m.Role)
	o.Key("parts")
	if m.Parts == nil {
		o.B = append(o.B, "null"...)
	} else {
		o.B = append(o.B, '[')
		for i := range m.Parts {
			if i > 0 {
				o.B = append(o.B, ',')
			}
			var err error
			if o.B, err = appendPart(o.B, &m.Parts[i]); err != nil {
				return b, err
			}
		}
		o.B = append(o.B, ']')
	}
	if err := o.RawOmit("metadata", m.Metadata); err != nil {
		return b, err
	}
	o.StringsOmit("extensions", m.Extensions)
	o.StringsOmit("referenceTaskIds", m.ReferenceTaskIDs)
	return o.End(), nil
}

// appendPart writes a part as encoding/json writes Part.
func appendPart(b []byte, p *Part) ([]byte, error) {
	o := jsonwrite.Begin(b)
	if p.Text != nil {
		o.Str("text", *p.Text)
	}
	o.BytesOmit("raw", p.Raw)
	o.StrOmit("url", p.URL)
	if err := o.RawOmit("data", p.Data); err != nil {
		return b, err
	}
	o.StrOmit("filename", p.Filename)
	o.StrOmit("mediaType", p.MediaType)
	if err := o.RawOmit("metadata", p.Metadata); err != nil {
		return b, err
	}
	return o.End(), nil
}

// appendReplyMeta writes a direct message's metadata as encoding/json
// writes replyMeta's struct: {"harnest":{"responseId","usage"?}}.
func appendReplyMeta(b []byte, responseID string, usage *runtime.Usage) []byte {
	b = append(b, `{"harnest":{"responseId":`...)
	b = jsonwrite.AppendString(b, responseID)
	if usage != nil {
		b = append(b, `,"usage":`...)
		b = usage.AppendJSON(b)
	}
	return append(b, '}', '}')
}
