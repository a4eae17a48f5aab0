package neutral

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/harnest/harnest/runtime"
)

// The handlers below parse their input before they touch the service. The
// fuzz targets run them on an API without a service: input the handler
// must reject has to be answered (400, 413 or 415) without reaching the
// service, and input it must accept has to reach it, which with no service
// is a nil-pointer panic inside the named runtime.Service method. Only that
// panic is recovered.

// fuzzBodyLimit is small so that fuzzed bodies also reach the 413 path.
const fuzzBodyLimit = 512

func newFuzzAPI(t testing.TB) *API {
	t.Helper()
	a, err := New(Options{MaxBodyBytes: fuzzBodyLimit})
	if err != nil {
		t.Fatal(err)
	}
	if a.svc != nil {
		t.Fatal("the fuzz API must have no service")
	}
	return a
}

// serveWithoutService calls h and reports whether it reached the service
// method named by method (for example "(*Service).Decide"); any other panic
// fails the test.
func serveWithoutService(t *testing.T, h http.HandlerFunc, r *http.Request, method string) (rec *httptest.ResponseRecorder, reached bool) {
	t.Helper()
	rec = httptest.NewRecorder()
	func() {
		defer func() {
			if v := recover(); v != nil {
				stack := debug.Stack()
				if !bytes.Contains(stack, []byte("runtime."+method)) {
					t.Fatalf("panic outside %s: %v\n%s", method, v, stack)
				}
				reached = true
			}
		}()
		h(rec, r)
	}()
	return rec, reached
}

// checkRejected asserts an error reply of the neutral API with one of the
// given statuses.
func checkRejected(t *testing.T, rec *httptest.ResponseRecorder, want int) {
	t.Helper()
	if rec.Code != want {
		t.Fatalf("status %d, want %d; body %s", rec.Code, want, rec.Body)
	}
	var e struct {
		Detail string `json:"detail"`
		Code   string `json:"code"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Detail == "" || e.Code == "" {
		t.Fatalf("error body %q is not {detail, code}", rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error Content-Type %q", ct)
	}
}

// bodyStatus is the status the API must answer for a body that is not the
// expected object: 415 for a non-JSON content type, 413 past the limit,
// else 400.
func bodyStatus(contentType string, body []byte) int {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt != "application/json":
		return http.StatusUnsupportedMediaType
	case len(body) > fuzzBodyLimit:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

// jsonObject decodes body as one JSON object; duplicate keys keep the last
// value, as everywhere in the API.
func jsonObject(body []byte) (map[string]json.RawMessage, bool) {
	if !json.Valid(body) {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// acceptable reports whether the transport must accept the request at all:
// a JSON content type and a body within the limit.
func acceptable(contentType string, body []byte) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json" && len(body) <= fuzzBodyLimit
}

func bodySeeds(f *testing.F, bodies ...string) {
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON", "text/plain", "", "application/json+x"} {
		f.Add(ct, []byte(bodies[0]))
	}
	for _, b := range bodies {
		f.Add("application/json", []byte(b))
	}
	f.Add("application/json", bytes.Repeat([]byte(" "), fuzzBodyLimit+1))
	f.Add("application/json", []byte(`{"x":"`+strings.Repeat("a", fuzzBodyLimit)+`"}`))
}

var commonBadBodies = []string{
	``, ` `, `null`, `[]`, `"x"`, `1`, `{`, `{}`, `{"x":1}`, "{\"a\":\"\xff\"}",
	`{"decision":"approve"}{}`, `[{"decision":"approve"}]`,
}

func FuzzDecideBody(f *testing.F) {
	bodySeeds(f, append([]string{
		`{"decision":"approve"}`, `{"decision":"deny"}`, ` { "decision" : "deny" } `,
		`{"decision":"\u0061pprove"}`, `{"decision":"deny","decision":"approve"}`,
		`{"decision":"Approve"}`, `{"decision":"yes"}`, `{"decision":true}`, `{"decision":null}`,
		`{"decision":["approve"]}`, `{"decision":"approve","x":1}`, `{"Decision":"approve"}`,
		`{"decision":"approve "}`, `{"output":"approve"}`,
	}, commonBadBodies...)...)
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/approvals/approval_x", bytes.NewReader(body))
		r.SetPathValue("approvalId", "approval_x")
		r.Header.Set("Content-Type", contentType)
		rec, reached := serveWithoutService(t, a.decide, r, "(*Service).Decide")

		valid := false
		if obj, ok := jsonObject(body); ok && acceptable(contentType, body) && len(obj) == 1 {
			var d string
			raw, has := obj["decision"]
			valid = has && len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &d) == nil && (d == "approve" || d == "deny")
		}
		switch {
		case valid && !reached:
			t.Fatalf("valid decision %q rejected: %d %s", body, rec.Code, rec.Body)
		case !valid && reached:
			t.Fatalf("invalid body %q (Content-Type %q) reached the service", body, contentType)
		case !valid:
			checkRejected(t, rec, bodyStatus(contentType, body))
		}
	})
}

func FuzzClientToolBody(f *testing.F) {
	bodySeeds(f, append([]string{
		`{"output":"Oslo"}`, `{"output":null}`, `{"output":{"a":[1,2]}}`, `{"output":[]}`, `{"output":0}`,
		`{"output":""}`, `{"\u006futput":1}`, `{"output":1,"output":2}`,
		`{"result":1}`, `{"output":1,"x":2}`, `{"Output":1}`, `{"output":}`,
	}, commonBadBodies...)...)
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/client-tools/client_tool_x", bytes.NewReader(body))
		r.SetPathValue("requestId", "client_tool_x")
		r.Header.Set("Content-Type", contentType)
		rec, reached := serveWithoutService(t, a.submitClientTool, r, "(*Service).SubmitClientTool")

		valid := false
		if obj, ok := jsonObject(body); ok && acceptable(contentType, body) && len(obj) == 1 {
			_, valid = obj["output"]
		}
		switch {
		case valid && !reached:
			t.Fatalf("valid output %q rejected: %d %s", body, rec.Code, rec.Body)
		case !valid && reached:
			t.Fatalf("invalid body %q (Content-Type %q) reached the service", body, contentType)
		case !valid:
			checkRejected(t, rec, bodyStatus(contentType, body))
		}
	})
}

var decimal = regexp.MustCompile(`^[+-]?[0-9]+$`)

// validAfter reports whether s is an event position: a decimal integer
// from -1 that fits an int.
func validAfter(s string) bool {
	if !decimal.MatchString(s) {
		return false
	}
	n, ok := new(big.Int).SetString(s, 10)
	return ok && n.Cmp(big.NewInt(-1)) >= 0 && n.Cmp(big.NewInt(math.MaxInt)) <= 0
}

func FuzzEventsAfter(f *testing.F) {
	for _, s := range []struct{ session, after, lastEventID string }{
		{"s", "", ""}, {"s", "-1", ""}, {"s", "0", ""}, {"s", "42", "x"}, {"s", "+3", ""}, {"s", "007", ""},
		{"s", "-2", ""}, {"s", "x", "1"}, {"s", "1.5", ""}, {"s", " 1", ""}, {"s", "1e3", ""}, {"s", "-0", ""},
		{"s", "9223372036854775807", ""}, {"s", "9223372036854775808", ""}, {"s", "0x10", ""}, {"s", "١", ""},
		{"s", "", "5"}, {"s", "", "-1"}, {"s", "", "-5"}, {"s", "", "abc"}, {"s", "", "  "},
		{"", "1", ""}, {" \t", "x", ""}, {"s", "\x00", ""}, {"s", "1\n", ""},
	} {
		f.Add(s.session, s.after, s.lastEventID)
	}
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, sessionID, after, lastEventID string) {
		q := url.Values{}
		q.Set("sessionId", sessionID)
		q.Set("after", after)
		r := httptest.NewRequest(http.MethodGet, "/responses/resp_x/events?"+q.Encode(), nil)
		r.SetPathValue("responseId", "resp_x")
		r.Header["Last-Event-Id"] = []string{lastEventID}
		rec, reached := serveWithoutService(t, a.getEvents, r, "(*Service).GetResponse")

		// Both positions are read (the later is resumed after): each must
		// be empty or valid.
		valid := strings.TrimSpace(sessionID) != "" && (after == "" || validAfter(after)) && (lastEventID == "" || validAfter(lastEventID))
		switch {
		case valid && !reached:
			t.Fatalf("valid sessionId %q, after %q, Last-Event-ID %q rejected: %d %s", sessionID, after, lastEventID, rec.Code, rec.Body)
		case !valid && reached:
			t.Fatalf("sessionId %q, after %q, Last-Event-ID %q reached the service", sessionID, after, lastEventID)
		case !valid:
			checkRejected(t, rec, http.StatusBadRequest)
			if rec.Header().Get("Content-Type") == "text/event-stream" {
				t.Fatal("a rejected request opened a stream")
			}
		}
	})
}

var knownPartTypes = map[string]bool{"text": true, "image": true, "audio": true, "video": true, "file": true}

func FuzzInputParts(f *testing.F) {
	for _, s := range []string{
		`"hi"`, `"  "`, `""`, `1`, `null`, `{}`, `[]`, `["hi"]`, `[null]`, `[1]`,
		`[{"type":"text","text":"hi"}]`,
		`[{"type":"text","text":""}]`,
		`[{"type":"text","text":" "},{"type":"image","assetId":"asset_1"}]`,
		`[{"type":"image","assetId":""}]`,
		`[{"type":"image","assetId":"a","text":"x"}]`,
		`[{"type":"text","text":"a","text":"b"}]`,
		`[{"type":"file","assetId":1}]`,
		`[{"type":"pdf","assetId":"a"}]`,
		`[{"type":"text"}]`,
		`[{"text":"a","x":1}]`,
		`[{"type":"\u0074ext","text":"a"}]`,
		`[{"type":"video","assetId":"v"},{"type":"audio","assetId":"a"},{"type":"text","text":"x"}]`,
		`[` + strings.Repeat(`{"type":"text","text":"x"},`, 64) + `{"type":"text","text":"x"}]`,
		`[{"type":"text","text":"a"}`,
		"[{\"type\":\"text\",\"text\":\"\xff\"}]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// parseParts takes any bytes without panicking.
		if input, parts, err := parseParts(data); err == nil {
			checkParts(t, data, input, parts)
		}
		if !json.Valid(data) {
			return // inputField only ever sees valid JSON members
		}
		input, parts, err := inputField(map[string]json.RawMessage{"input": data})
		if err != nil {
			var fe fieldError
			if fe, _ = err.(fieldError); fe.field != "input" || fe.must == "" {
				t.Fatalf("error %#v is not an input field error", err)
			}
			return
		}
		if parts == nil {
			var s string
			if data[0] != '"' || json.Unmarshal(data, &s) != nil || s != input || strings.TrimSpace(s) == "" {
				t.Fatalf("accepted %q as the string input %q", data, input)
			}
			return
		}
		if data[0] == '{' { // a typed input (typed_input.go): one data part
			if len(parts) != 1 || parts[0].Type != "data" || input != string(parts[0].Data) || !json.Valid(parts[0].Data) {
				t.Fatalf("accepted the object %q as %q %+v", data, input, parts)
			}
			return
		}
		checkParts(t, data, input, parts)
	})
}

// checkParts checks accepted content parts against data, decoded on its own.
func checkParts(t *testing.T, data []byte, input string, parts []runtime.InputPart) {
	t.Helper()
	var items []map[string]any
	if err := json.Unmarshal(data, &items); err != nil {
		t.Fatalf("accepted %q, which is not a list of objects: %v", data, err)
	}
	if len(parts) == 0 || len(parts) > 64 || len(parts) != len(items) {
		t.Fatalf("accepted %d parts from %d items", len(parts), len(items))
	}
	var texts []string
	hasMedia := false
	for i, p := range parts {
		if !knownPartTypes[p.Type] || items[i]["type"] != p.Type || len(items[i]) != 2 {
			t.Fatalf("part %d %+v from %v", i, p, items[i])
		}
		if p.Type == "text" {
			if p.AssetID != "" || items[i]["text"] != p.Text {
				t.Fatalf("text part %d %+v from %v", i, p, items[i])
			}
			texts = append(texts, p.Text)
			continue
		}
		if p.AssetID == "" || p.Text != "" || items[i]["assetId"] != p.AssetID {
			t.Fatalf("media part %d %+v from %v", i, p, items[i])
		}
		hasMedia = true
	}
	if input != strings.Join(texts, "\n") {
		t.Fatalf("input %q, want the text parts joined", input)
	}
	if !hasMedia && strings.TrimSpace(input) == "" {
		t.Fatalf("accepted parts with neither non-blank text nor media: %q", data)
	}
}
