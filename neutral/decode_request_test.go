package neutral

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/harnest/harnest/runtime"
)

// generalPath is the general path alone, as POST /responses decoded every
// body before the fast path.
func generalPath(a *API, w http.ResponseWriter, r *http.Request) (runtime.ResponseRequest, bool) {
	body, ok := a.readBody(w, r)
	if !ok {
		return runtime.ResponseRequest{}, false
	}
	return generalResponseRequest(w, body, false)
}

// decodeBoth decodes body with readResponseRequest and with the general
// path, and fails the test when they differ: in what they accept, in the
// request, or in the error written.
func decodeBoth(t *testing.T, body []byte) (req runtime.ResponseRequest, ok bool) {
	t.Helper()
	a := newFuzzAPI(t)
	post := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/responses", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	recNew, recOld := httptest.NewRecorder(), httptest.NewRecorder()
	req, ok = a.readResponseRequest(recNew, post())
	want, wantOK := generalPath(a, recOld, post())
	if ok != wantOK {
		t.Fatalf("body %q: accepted %v, the general path %v (%d %s)", body, ok, wantOK, recOld.Code, recOld.Body)
	}
	if !reflect.DeepEqual(req, want) {
		t.Fatalf("body %q: decoded\n%#v\nthe general path\n%#v", body, req, want)
	}
	if recNew.Code != recOld.Code || recNew.Body.String() != recOld.Body.String() {
		t.Fatalf("body %q: answered %d %s, the general path %d %s", body, recNew.Code, recNew.Body, recOld.Code, recOld.Body)
	}
	return req, ok
}

// fastBodies are bodies the fast path must decode itself.
var fastBodies = []string{
	`{"input":"hello"}`,
	` { "input" : "hello" , "stream" : true } `,
	`{"input":"hi","stream":false,"background":true,"sessionId":"s1"}`,
	`{"input":"line\nline \"q\" \\ \/ \b\f\r\t \u00e9 \ud83d\ude00 \ud800 \udc00x \ud83d\u0041"}`,
	`{"input":"hi","metadata":{}}`,
	`{"input":"hi","metadata":{ "a" : [1, -2.5e+3, 0, {"b":null}, true, false], "c":"<&>" }}`,
	`{"input":"hi","background":true,"webhook":{"url":"https://example.com/h","events":true}}`,
	`{"input":"hi","webhook":{"events":false,"url":"https://example.com/h"}}`,
	`{"input":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`,
	`{"input":[{"type":"image","assetId":"as_1"},{"text":"look","type":"text"}]}`,
	`{"input":[{"type":"file","url":"https://example.com/f.pdf","mediaType":"application/pdf","name":"f"}]}`,
	`{"input":[{"type":"data","data":{"k":[1,2, 3]}}, {"type":"data","data":null}]}`,
	`{"input":[{"type":"audio","assetId":"a"},{"type":"video","assetId":"v"},{"type":"file","assetId":"f"}]}`,
}

func TestFastResponseRequestDecodesCommonBodies(t *testing.T) {
	for _, body := range fastBodies {
		if _, ok := fastResponseRequest([]byte(body)); !ok {
			t.Errorf("fast path gave up on %s", body)
		}
		if _, ok := decodeBoth(t, []byte(body)); !ok {
			t.Errorf("refused %s", body)
		}
	}
}

// generalBodies are valid or invalid bodies that the fast path leaves to
// the general path; the answer must be the same either way.
var generalBodies = []string{
	`{"input":"a","input":"b"}`,
	`{"\u0069nput":"hi"}`,
	`{"input":"hi","metadata":{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`,
	`{"input":[{"type":"text","type":"text","text":"x"}]}`,
	`{}`, `[]`, `null`, `"input"`, `{"input":"hi"`, `{"input":"hi"} x`, `{"input":"hi",}`,
	`{"input":""}`, `{"input":"   \n\t"}`, `{"input":1}`, `{"input":null}`, `{"input":["hi"]}`, `{"input":[]}`,
	`{"input":[{"type":"text","text":" "}]}`, `{"input":[{"type":"image","assetId":""}]}`,
	`{"input":[{"type":"file","url":""}]}`, `{"input":[{"type":"file","url":"u","text":"x"}]}`,
	`{"input":[{"type":"text","text":"a","name":"n"}]}`, `{"input":[{"type":"data"}]}`, `{"input":[{"type":"x"}]}`,
	`{"input":"hi","sessionId":""}`, `{"input":"hi","sessionId":3}`, `{"input":"hi","stream":"true"}`,
	`{"input":"hi","stream":1}`, `{"input":"hi","stream":null}`, `{"input":"hi","metadata":null}`,
	`{"input":"hi","metadata":[]}`, `{"input":"hi","metadata":"{}"}`, `{"input":"hi","extra":1}`, `{"Input":"hi"}`,
	`{"input":"hi","webhook":{}}`, `{"input":"hi","webhook":{"url":""}}`, `{"input":"hi","webhook":{"url":"u","x":1}}`,
	`{"input":"hi","webhook":{"url":"u","events":"yes"}}`, `{"input":"hi","webhook":"u"}`,
	`{"input":"hi","metadata":{"a":01}}`, `{"input":"hi","metadata":{"a":1.}}`, `{"input":"hi","metadata":{"a":"\x"}}`,
	"{\"input\":\"a\tb\"}", `{"":true,"0":""}`, `{"input":"\u00"}`, `{"input":"x","metadata":{"a":tru}}`,
}

func TestFastResponseRequestAgreesWithTheGeneralPath(t *testing.T) {
	for _, body := range generalBodies {
		decodeBoth(t, []byte(body))
	}
	parts := strings.Repeat(`{"type":"text","text":"x"},`, maxInputParts)
	decodeBoth(t, []byte(`{"input":[`+strings.TrimSuffix(parts, ",")+`]}`))
	decodeBoth(t, []byte(`{"input":[`+parts+`{"type":"text","text":"x"}]}`))
}

// FuzzFastResponseRequest is the differential test of the fast path: for
// every UTF-8 body, POST /responses accepts what the general path accepts,
// with the same request, and refuses the rest with the same answer.
func FuzzFastResponseRequest(f *testing.F) {
	for _, body := range append(append([]string{}, fastBodies...), generalBodies...) {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) || len(body) > fuzzBodyLimit {
			return // refused before any decoding, by both
		}
		decodeBoth(t, body)
	})
}

// BenchmarkDecodeResponseRequest is the decoding of a POST /responses body
// alone: the fast path, and the general path it replaces for common bodies.
func BenchmarkDecodeResponseRequest(b *testing.B) {
	bodies := map[string][]byte{
		"text":  []byte(`{"input":"hello"}`),
		"full":  []byte(`{"input":"Summarize this, please.","sessionId":"se_0123456789abcdef","stream":true,"metadata":{"user":"u1","tags":["a","b"]}}`),
		"parts": []byte(`{"input":[{"type":"text","text":"look"},{"type":"image","assetId":"as_0123456789"}]}`),
	}
	for _, name := range []string{"text", "full", "parts"} {
		body := bodies[name]
		b.Run(name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := fastResponseRequest(body); !ok {
					b.Fatal("fast path gave up")
				}
			}
		})
		b.Run(name+"/general", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var obj map[string]json.RawMessage
				if !utf8.Valid(body) || !json.Valid(body) || json.Unmarshal(body, &obj) != nil {
					b.Fatal("invalid body")
				}
				if _, err := parseResponseRequest(obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
