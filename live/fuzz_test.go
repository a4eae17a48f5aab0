package live

import (
	"encoding/json"
	"testing"
)

// FuzzFrame feeds the frame decoder arbitrary bytes: it never panics, it
// accepts only known types with exactly their members, and what it accepts
// survives a round trip.
func FuzzFrame(f *testing.F) {
	for _, seed := range []string{
		`{"type":"connect"}`,
		`{"type":"connect","sessionId":"s1"}`,
		`{"type":"connect","sessionId":""}`,
		`{"type":"connect","sessionId":null}`,
		`{"type":"response.create","input":"hi"}`,
		`{"type":"response.create","input":"hi","requestId":"r","metadata":{"a":[1,{"b":null}]}}`,
		`{"type":"response.create","input":"hi","requestId":null}`,
		`{"type":"response.create","input":[{"type":"text","text":"a"},{"type":"image","assetId":"asset_1"}]}`,
		`{"type":"response.create","input":[]}`,
		`{"type":"response.create","input":"hi","metadata":[]}`,
		`{"type":"response.create","input":"hi","stream":true}`,
		`{"type":"response.cancel","responseId":"resp_1"}`,
		`{"type":"response.cancel","responseId":1}`,
		`{"type":"approval.decision","responseId":"r","approvalId":"a","decision":"approve"}`,
		`{"type":"approval.decision","responseId":"r","approvalId":"a","decision":"maybe"}`,
		`{"type":"client_tool.result","requestId":"c","output":{"x":[1,2]}}`,
		`{"type":"client_tool.result","requestId":"c"}`,
		`{"type":"session.close"}`,
		`{"type":"session.close","x":1}`,
		`{"type":"nope"}`, `{"type":1}`, `{}`, `[]`, `null`, `"x"`, `{"type":"connect"`,
		"{\"type\":\"response.create\",\"input\":\"\xff\"}",
		`{"type":"connect","type":"response.create","input":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, ferr := decodeFrame(data)
		if ferr != nil {
			if ferr.Msg == "" {
				t.Fatalf("rejection without a message: %q", data)
			}
			return
		}
		allowed, known := allowedKeys[fr.Type]
		if !known {
			t.Fatalf("accepted unknown type %q: %q", fr.Type, data)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("accepted a frame that is not an object: %q", data)
		}
		for k := range obj {
			if !contains(allowed, k) {
				t.Fatalf("accepted extra key %q in %q", k, data)
			}
		}
		// Round trip: re-encode the decoded frame and decode it again.
		again, aerr := decodeFrame(encodeFrame(fr))
		if aerr != nil {
			t.Fatalf("re-encoded %q does not decode: %v", encodeFrame(fr), aerr)
		}
		a, _ := json.Marshal(again)
		b, _ := json.Marshal(fr)
		if string(a) != string(b) {
			t.Fatalf("round trip changed the frame:\n%s\n%s", a, b)
		}
	})
}

// encodeFrame writes a decoded frame back as the client would send it.
func encodeFrame(f frame) []byte {
	m := map[string]any{"type": f.Type}
	switch f.Type {
	case frameConnect:
		if f.SessionID != "" {
			m["sessionId"] = f.SessionID
		}
	case frameCreate:
		if f.Parts != nil {
			parts := make([]map[string]string, len(f.Parts))
			for i, p := range f.Parts {
				if p.Type == "text" {
					parts[i] = map[string]string{"type": "text", "text": p.Text}
				} else {
					parts[i] = map[string]string{"type": p.Type, "assetId": p.AssetID}
				}
			}
			m["input"] = parts
		} else {
			m["input"] = f.Input
		}
		if f.RequestID != nil {
			m["requestId"] = *f.RequestID
		}
		if f.Metadata != nil {
			m["metadata"] = f.Metadata
		}
	case frameCancel:
		m["responseId"] = f.ResponseID
	case frameDecision:
		m["responseId"], m["approvalId"] = f.ResponseID, f.ApprovalID
		m["decision"] = f.Answer.Decision
		if f.Answer.Message != "" {
			m["message"] = f.Answer.Message
		}
		if f.Answer.Arguments != nil {
			m["arguments"] = f.Answer.Arguments
		}
		if f.Answer.Result != nil {
			m["result"] = f.Answer.Result
		}
	case frameToolResult:
		m["requestId"], m["output"] = f.ToolRequestID, f.Output
	}
	b, _ := json.Marshal(m)
	return b
}

func TestReframe(t *testing.T) {
	rid := json.RawMessage(`"r1"`)
	for _, c := range []struct {
		in     string
		seq    int
		req    json.RawMessage
		always bool
		want   string
	}{
		{`{"type":"response.text.delta","sequence":7,"responseId":"x","delta":"a"}`, 3, rid, false, `{"type":"response.text.delta","sequence":3,"responseId":"x","delta":"a","requestId":"r1"}`},
		{`{"type":"response.text.delta","sequence":7,"delta":"a"}`, 12, nil, false, `{"type":"response.text.delta","sequence":12,"delta":"a"}`},
		{`{"type":"response.created","sequence":0,"metadata":{}}`, 0, nil, true, `{"type":"response.created","sequence":0,"metadata":{},"requestId":null}`},
		{`{"type":"x","delta":"no sequence"}`, 4, rid, false, `{"delta":"no sequence","requestId":"r1","sequence":4,"type":"x"}`},
	} {
		if got := string(reframe([]byte(c.in), c.seq, c.req, c.always)); got != c.want {
			t.Errorf("reframe(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
