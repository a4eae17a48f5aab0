package neutral

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/harnest/harnest/runtime"
)

// reencodeResponseRequest writes req back as a POST /responses envelope,
// omitting the members that were absent.
func reencodeResponseRequest(t *testing.T, req runtime.ResponseRequest) []byte {
	t.Helper()
	env := struct {
		Input     string          `json:"input"`
		SessionID string          `json:"sessionId,omitempty"`
		Stream    bool            `json:"stream"`
		Metadata  json.RawMessage `json:"metadata,omitempty"`
	}{req.Input, req.SessionID, req.Stream, req.Metadata}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		t.Fatalf("re-encode %+v: %v", req, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func FuzzResponseRequest(f *testing.F) {
	for _, seed := range []string{
		// valid
		`{"input":"hi"}`,
		`{"input":"hi","stream":true}`,
		`{"input":"hi","stream":false,"sessionId":"s1"}`,
		`{"input":"hi","metadata":{}}`,
		`{"input":"hi","metadata":{ "a" : [1, 2, {"b":null}], "c":"<&>" }}`,
		`{"input":"  x  ","sessionId":" ","metadata":{"\u2028":"\ud83d\ude00"}}`,
		`{"input":"a","input":"b"}`,
		"{\"input\":\"\xff\xfe\"}",
		`{"input":"\u0000"}`,
		// invalid
		`{}`,
		`{"input":""}`,
		`{"input":"   \n\t"}`,
		`{"input":1}`,
		`{"input":null}`,
		`{"input":["hi"]}`,
		`{"input":"hi","sessionId":""}`,
		`{"input":"hi","sessionId":3}`,
		`{"input":"hi","stream":"true"}`,
		`{"input":"hi","stream":1}`,
		`{"input":"hi","stream":null}`,
		`{"input":"hi","metadata":null}`,
		`{"input":"hi","metadata":[]}`,
		`{"input":"hi","metadata":"{}"}`,
		`{"input":"hi","extra":1}`,
		`{"Input":"hi"}`,
		`[]`,
		`"input"`,
		`null`,
		`{"input":"hi"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
			return
		}
		req, err := parseResponseRequest(obj)
		if err != nil {
			var fe fieldError
			if !errors.As(err, &fe) || fe.field == "" || fe.must == "" {
				t.Fatalf("error %#v is not a field error", err)
			}
			return
		}
		if strings.TrimSpace(req.Input) == "" {
			t.Fatalf("accepted blank input %q", req.Input)
		}
		if len(req.Metadata) > 0 {
			var m map[string]json.RawMessage
			if req.Metadata[0] != '{' || json.Unmarshal(req.Metadata, &m) != nil || m == nil {
				t.Fatalf("metadata %q is not a JSON object", req.Metadata)
			}
			var compacted bytes.Buffer
			if err := json.Compact(&compacted, req.Metadata); err != nil || !bytes.Equal(compacted.Bytes(), req.Metadata) {
				t.Fatalf("metadata %q is not compact", req.Metadata)
			}
		}
		if _, has := obj["sessionId"]; has && req.SessionID == "" {
			t.Fatalf("accepted an empty sessionId")
		}

		again := reencodeResponseRequest(t, req)
		var obj2 map[string]json.RawMessage
		if err := json.Unmarshal(again, &obj2); err != nil {
			t.Fatalf("re-encoded %s: %v", again, err)
		}
		req2, err := parseResponseRequest(obj2)
		if err != nil {
			t.Fatalf("re-encoded %s rejected: %v", again, err)
		}
		if req2.Input != req.Input || req2.SessionID != req.SessionID || req2.Stream != req.Stream ||
			!bytes.Equal(req2.Metadata, req.Metadata) {
			t.Fatalf("round trip changed the request:\n%+v\n%+v", req, req2)
		}
	})
}
