package a2a

import (
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/harnest/harnest/runtime"
)

// The append-based writer must write what encoding/json writes.

var writerStrings = []string{"", "hello", "Echo: hello", "a\"b\\c", "<b>&amp;</b>", "tab\there\nnl\r\x00\x1f\b\f",
	"héllo ✓", "line\u2028sep\u2029", "bad\xffutf8\xc3", "emoji 🙂", "ROLE_AGENT"}

var writerRaws = []json.RawMessage{nil, json.RawMessage(`{}`), json.RawMessage(`null`), json.RawMessage(`{"a":1,"b":[true,null]}`),
	json.RawMessage(` { "a" : "x y" } `), json.RawMessage(`{"h":"<&>"}`), json.RawMessage(`"é\u2028"`), json.RawMessage(`[1, 2]`),
	json.RawMessage(`{"s":"a\"b \\ c"}`), json.RawMessage(`12.5e3`), json.RawMessage(`"1"`)}

func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

// randomMessage makes a message from the value lists above.
func randomMessage(r *rand.Rand) *Message {
	m := &Message{MessageID: pick(r, writerStrings), ContextID: pick(r, writerStrings), TaskID: pick(r, writerStrings),
		Role: pick(r, writerStrings), Metadata: pick(r, writerRaws)}
	if r.IntN(4) > 0 {
		m.Parts = []Part{}
	}
	for range r.IntN(3) {
		p := Part{URL: pick(r, writerStrings), Filename: pick(r, writerStrings), MediaType: pick(r, writerStrings),
			Data: pick(r, writerRaws), Metadata: pick(r, writerRaws)}
		if r.IntN(2) == 0 {
			text := pick(r, writerStrings)
			p.Text = &text
		}
		if r.IntN(3) == 0 {
			p.Raw = []byte(pick(r, writerStrings))
		}
		m.Parts = append(m.Parts, p)
	}
	for range r.IntN(3) {
		m.Extensions = append(m.Extensions, pick(r, writerStrings))
	}
	if r.IntN(2) == 0 {
		m.ReferenceTaskIDs = []string{}
	}
	for range r.IntN(3) {
		m.ReferenceTaskIDs = append(m.ReferenceTaskIDs, pick(r, writerStrings))
	}
	return m
}

func TestAppendMessageMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		m := randomMessage(r)
		want, wantErr := json.Marshal(m)
		got, err := appendMessage(nil, m)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%+v: error %v, encoding/json %v", m, err, wantErr)
		}
		if err == nil && string(got) != string(want) {
			t.Fatalf("%+v:\nappended      %s\nencoding/json %s", m, got, want)
		}
	}
}

func TestReplyMetaMatchesEncodingJSON(t *testing.T) {
	var usage runtime.Usage
	v := reflect.ValueOf(&usage).Elem()
	for i := range v.NumField() { // every field, so that a new one shows
		v.Field(i).SetInt(int64(100 + i))
	}
	for _, u := range []*runtime.Usage{nil, &usage} {
		var want struct {
			Harnest struct {
				ResponseID string         `json:"responseId"`
				Usage      *runtime.Usage `json:"usage,omitempty"`
			} `json:"harnest"`
		}
		want.Harnest.ResponseID, want.Harnest.Usage = "resp_<1>", u
		b, _ := json.Marshal(want)
		if got := replyMeta("resp_<1>", u); string(got) != string(b) {
			t.Fatalf("replyMeta %s, encoding/json %s", got, b)
		}
	}
}

func TestWriteRPCMessageMatchesWriteRPC(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ids := []json.RawMessage{nil, json.RawMessage(`"1"`), json.RawMessage(`7`), json.RawMessage(`null`), json.RawMessage(`"<id>"`)}
	for i := range 500 {
		m := randomMessage(r)
		id := ids[i%len(ids)]
		fast, slow := httptest.NewRecorder(), httptest.NewRecorder()
		writeRPCMessage(fast, id, m)
		writeRPC(slow, rpcResponse{ID: id, Result: StreamEvent{Message: m}})
		if fast.Body.String() != slow.Body.String() || fast.Code != slow.Code ||
			fast.Header().Get("Content-Type") != slow.Header().Get("Content-Type") {
			t.Fatalf("appended %d %s\nwriteRPC %d %s", fast.Code, fast.Body, slow.Code, slow.Body)
		}
	}
}
