package a2a

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fast decoders must decode what they accept exactly as encoding/json
// does, and accept the common requests.

var fastEnvelopeBodies = []string{
	`{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`,
	` { "jsonrpc" : "2.0" , "id" : 7 , "method" : "GetTask" , "params" : { "id" : "t" } } `,
	`{"jsonrpc":"2.0","id":null,"method":"message/send","params":null,"extra":[1,{"a":"}"}]}`,
	`{"id":-1.5e3,"method":"x","jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":"a\"b","method":"SendMessage"}`,
	`{"jsonrpc":"2.0","id":1,"method":"Send\u004dessage"}`,
	`{"jsonrpc":"2.0","ID":1,"method":"SendMessage"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"SendMessage"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}` + " \n",
	`{"jsonrpc":"2.0","id":{},"method":1}`,
	`{"\u006aSONRPC":"2.0","method":"x"}`,
	`{"jsonrpc":"2.0","method":"x","ſtuff":1,"meKhod":2}`,
	`{"jsonrpc":"2.0","method":"x","params":[1,2]`,
	`{}`,
}

var fastSendBodies = []string{
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}`,
	`{"message":{"messageId":"m1","contextId":"c","taskId":"t","role":"ROLE_USER","parts":[{"text":"a","mediaType":"text/plain"},{"url":"https://x/y.png","filename":"y.png","mediaType":"image/png"},{"data":{"a":[1,2,{"b":null}]},"metadata":{"k":"v"}}],"metadata":{"x":1}},"metadata":{"y":"z"}}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","kind":"message","parts":[{"text":null,"data":null}]},"other":{"nested":["]"]}}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[]}}`,
	`{"message":{"messageId":null,"role":"user","parts":[{"text":"héllo ✓"}],"metadata":null},"metadata":[]}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a\nb"}]}}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"raw":"aGk="}]}}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a","text":"b"}]}}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"Text":"a"}]}}`,
	`{"message":{"message_id":"m1","role":"ROLE_USER","parts":[{"text":"a"}]}}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a"}],"extensions":["e"]}}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a"}]},"configuration":{"returnImmediately":true}}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":1}]}}`,
	`{"message":{"messageId":"m1","role":"ROLE_USER","parts":{"text":"a"}}}`,
	`{"message":null}`,
	`{"message":{"messageId":"m1"},"message":{"role":"ROLE_USER"}}`,
	`{"metadata":{}}`,
	"{\"message\":{\"messageId\":\"m1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"a\"}],\"tas\u212aId\":\"t\"}}",
	`[]`, `null`, `"x"`, ``, `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a"}]}`,
	"{\"message\":{\"messageId\":\"m\xff\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"a\"}]}}",
}

// checkFastEnvelope compares readEnvelope with encoding/json on body.
func checkFastEnvelope(t *testing.T, body []byte) (accepted bool) {
	t.Helper()
	if !utf8.Valid(body) {
		return false // parseRPC refuses it before
	}
	fast, ok := readEnvelope(body)
	if !ok {
		return false
	}
	var slow rawEnvelope
	if err := json.Unmarshal(body, &slow); err != nil {
		t.Fatalf("the fast envelope reader accepted %q, encoding/json did not: %v", body, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("envelope of %q: fast %+v, encoding/json %+v", body, fast, slow)
	}
	if name, ok := plainMethod(fast.Method); ok {
		var want string
		if err := json.Unmarshal(fast.Method, &want); err != nil || name != want {
			t.Fatalf("method of %q: fast %q, encoding/json %q (%v)", body, name, want, err)
		}
	}
	return true
}

// checkFastSend compares readSend10 with the generic decoder on body.
func checkFastSend(t *testing.T, body []byte) (accepted bool) {
	t.Helper()
	fast, ok := readSend10(body, false)
	if !ok {
		return false
	}
	if _, err := parseRPC([]byte(`{"jsonrpc":"2.0","method":"x","params":` + string(body) + `}`)); err == nil {
		// As params of a request parseRPC accepted, the body is read the
		// same without its checks.
		if again, ok := readSend10(body, true); !ok || !reflect.DeepEqual(again, fast) {
			t.Fatalf("send of %q read as checked params: %v %#v", body, ok, again)
		}
	}
	slow, err := decodeSend10Generic(body)
	if err != nil {
		t.Fatalf("the fast send reader accepted %q, the generic decoder did not: %v", body, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("send of %q:\nfast    %#v\ngeneric %#v", body, fast, slow)
	}
	return true
}

// deepValue is a JSON value nested deeper than the shared scanner reads
// (jsonscan.MaxDepth): the fast decoders must give up, not misread it.
var deepValue = strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100)

func TestFastDecodersMatchEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":` + deepValue + `}`,
		`{"jsonrpc":"2.0","id":1,"extra":` + deepValue + `,"method":"SendMessage"}`,
	} {
		if _, ok := readEnvelope([]byte(body)); ok {
			t.Errorf("the fast envelope reader took a value nested 100 deep: %.60s", body)
		}
	}
	for _, body := range []string{
		`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a"}]},"metadata":` + deepValue + `}`,
		`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":` + deepValue + `}]}}`,
		`{"other":` + deepValue + `,"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a"}]}}`,
	} {
		if _, ok := readSend10([]byte(body), false); ok {
			t.Errorf("the fast send reader took a value nested 100 deep: %.60s", body)
		}
	}
	accepted := 0
	for _, body := range fastEnvelopeBodies {
		if checkFastEnvelope(t, []byte(body)) {
			accepted++
		}
	}
	for _, body := range fastSendBodies {
		if checkFastSend(t, []byte(body)) {
			accepted++
		}
	}
	if accepted < 10 {
		t.Fatalf("the fast decoders accepted only %d of the bodies", accepted)
	}
}

func TestFastDecodersTakeCommonRequests(t *testing.T) {
	if _, ok := readEnvelope([]byte(fastEnvelopeBodies[0])); !ok {
		t.Fatal("the common envelope went the generic way")
	}
	for _, body := range fastSendBodies[:5] {
		if _, ok := readSend10([]byte(body), false); !ok {
			t.Fatalf("%s went the generic way", body)
		}
	}
}

func FuzzFastDecoders(f *testing.F) {
	for _, body := range fastEnvelopeBodies {
		f.Add([]byte(body))
	}
	for _, body := range fastSendBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastEnvelope(t, body)
		checkFastSend(t, body)
	})
}
