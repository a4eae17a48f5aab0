package a2a_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestInvalidUTF8IsAParseError: JSON text with bytes that are not UTF-8 is
// refused in each binding's own error shape (encoding/json would have
// turned them into U+FFFD and run the turn).
func TestInvalidUTF8IsAParseError(t *testing.T) {
	const bad = "\xff\xfe"
	eachStore(t, setup{}, func(t *testing.T, h *harness) {
		rpcCalls := []struct{ version, method, params string }{
			{"1.0", "SendMessage", `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"` + bad + `"}]}}`},
			{"1.0", "GetTask", `{"id":"task-` + bad + `"}`},
			{"1.0", "ListTasks", `{"contextId":"` + bad + `"}`},
			{"", "message/send", `{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"` + bad + `"}]}}`},
			{"", "tasks/get", `{"id":"` + bad + `"}`},
			{"", "tasks/list", `{"context_id":"` + bad + `"}`},
		}
		for _, c := range rpcCalls {
			body := `{"jsonrpc":"2.0","id":"1","method":"` + c.method + `","params":` + c.params + `}`
			var headers []string
			if c.version != "" {
				headers = []string{"A2A-Version", c.version}
			}
			r := h.do("POST", "/a2a", body, headers...)
			if r.Status != http.StatusOK {
				t.Fatalf("%s: status %d: %s", c.method, r.Status, r.Body)
			}
			v := r.JSON(t)
			if code, _ := dig(v, "error", "code").(float64); code != -32700 || !strings.Contains(str(v, "error", "message"), "UTF-8") {
				t.Errorf("%s: want a -32700 parse error about UTF-8, got %s", c.method, r.Body)
			}
			if dig(v, "result") != nil {
				t.Errorf("%s: a result came back: %s", c.method, r.Body)
			}
		}

		r := h.do("POST", "/rest/message:send", `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"`+bad+`"}]}}`, "A2A-Version", "1.0")
		if r.Status != http.StatusBadRequest || !strings.Contains(str(r.JSON(t), "error", "message"), "UTF-8") ||
			str(r.JSON(t), "error", "status") != "INVALID_ARGUMENT" {
			t.Errorf("1.0 REST send: %d %s", r.Status, r.Body)
		}
		r = h.do("POST", "/rest/v1/message:send", `{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"`+bad+`"}]}}`)
		var e03 struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if r.Status != http.StatusBadRequest || json.Unmarshal(r.Body, &e03) != nil || e03.Code != -32700 || !strings.Contains(e03.Message, "UTF-8") {
			t.Errorf("0.3 REST send: %d %s", r.Status, r.Body)
		}

		// The same requests in valid UTF-8 still work.
		r = h.do("POST", "/rest/message:send", `{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"héllo"}]}}`, "A2A-Version", "1.0")
		if r.Status != http.StatusOK {
			t.Errorf("valid REST send: %d %s", r.Status, r.Body)
		}
	})
}
