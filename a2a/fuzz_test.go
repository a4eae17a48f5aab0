package a2a

import (
	"encoding/json"
	"net/url"
	"testing"
)

// The decoders of outside input must never panic, and what they accept
// must be a valid request: a user message with an ID and parts that each
// hold exactly one kind of content.

func checkAccepted(t *testing.T, req sendRequest) {
	t.Helper()
	m := req.Message
	if m.Role != roleUser || m.MessageID == "" || len(m.Parts) == 0 {
		t.Fatalf("accepted an invalid message: %+v", m)
	}
	if err := checkMessage(&m); err != nil {
		t.Fatalf("accepted a message that does not check: %v", err)
	}
	if _, err := json.Marshal(codec03{}.event(StreamEvent{Message: &m})); err != nil {
		t.Fatalf("accepted message cannot be encoded: %v", err)
	}
}

func FuzzJSONRPCDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"returnImmediately":true,"historyLength":2}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"},{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain"}},{"kind":"data","data":{"a":1}}]},"configuration":{"blocking":false}}}`,
		`{"jsonrpc":"2.0","id":null,"method":"GetTask","params":{"id":"resp_1","historyLength":0}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ListTasks","params":{"contextId":"c","status":"TASK_STATE_WORKING","pageSize":10,"pageToken":"eyJzIjoxLCJpIjoiYSJ9","statusTimestampAfter":"2026-01-01T00:00:00Z"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tasks/list","params":{"context_id":"c","page_size":5}}`,
		`[]`, `{}`, `{"jsonrpc":"2.0","id":{},"method":1}`, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"parts":[{"text":null,"data":null}]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parseRPC(body)
		if err != nil {
			if err.Code > -32000 || err.Code < -32700 {
				t.Fatalf("envelope error with code %d", err.Code)
			}
			return
		}
		if req.Method == "" {
			t.Fatal("accepted a request without a method")
		}
		if r, err := decodeSend10(req.Params); err == nil {
			checkAccepted(t, r)
		}
		if r, err := decodeSend03(req.Params); err == nil {
			checkAccepted(t, r)
		}
		if p, err := decodeTaskID(req.Params); err == nil && (p.ID == "" || len(p.ID) > maxIDLength) {
			t.Fatalf("accepted task id %q", p.ID)
		}
		for _, decode := range []func(json.RawMessage) (listRequest, error){decodeList10, decodeList03} {
			if q, err := decode(req.Params); err == nil && (q.PageSize < 1 || q.PageSize > 100) {
				t.Fatalf("accepted page size %d", q.PageSize)
			}
		}
	})
}

func FuzzRESTDecode(f *testing.F) {
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`), "contextId=c&status=working&pageSize=3")
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi"},{"data":{"data":{"a":1}}},{"file":{"fileWithUri":"https://x","mimeType":"image/png"}}]},"configuration":{}}`), "includeArtifacts=true&historyLength=0")
	f.Add([]byte(`{"request":{"messageId":"m","role":"user","content":[{"file":{"fileWithBytes":"!!"}}]}}`), "lastUpdatedAfter=2026-01-01T00:00:00Z&pageToken=x")
	f.Add([]byte(`null`), "pageSize=-1&status=TASK_STATE_CANCELLED")
	f.Fuzz(func(t *testing.T, body []byte, query string) {
		if r, err := decodeSend10(body); err == nil {
			checkAccepted(t, r)
		}
		if r, err := decodeSend03REST(body); err == nil {
			checkAccepted(t, r)
			if _, err := json.Marshal(codec03REST{}.event(StreamEvent{Message: &r.Message})); err != nil {
				t.Fatal(err)
			}
		}
		v, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		if q, err := decodeListQuery(v); err == nil {
			if q.PageSize < 1 || q.PageSize > 100 || (q.HistoryLength != nil && *q.HistoryLength < 0) {
				t.Fatalf("accepted %+v", q)
			}
			if q.Status != "" {
				if _, ok := normalizeState(q.Status); !ok {
					t.Fatalf("accepted status %q", q.Status)
				}
			}
		}
	})
}
