package neutral_test

// How request bodies arrive, over the whole server (internal/httpapi's
// BodyGuard as server wires it): oversized bodies answered to
// clients that write everything before reading, the body timeout, and
// bodies that are not UTF-8, on every transport that reads JSON.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// dialRaw connects a raw client (one that writes a whole request before
// reading, as Python's urllib does) to the server.
func (ts *testServer) dialRaw(t *testing.T) *testutil.RawConn {
	t.Helper()
	u, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	return testutil.DialRaw(t, u.Host)
}

// rawRequest is a request's head and whole body.
func rawRequest(method, path, contentType string, body []byte) []byte {
	head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: harnest\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		method, path, contentType, len(body))
	return append([]byte(head), body...)
}

// errorCode checks an error body {"detail","code"} and returns its code.
func errorCode(t *testing.T, body []byte) string {
	t.Helper()
	var e struct{ Detail, Code string }
	if json.Unmarshal(body, &e) != nil || e.Detail == "" || e.Code == "" {
		t.Fatalf("error body is not {detail, code}: %.200q", body)
	}
	return e.Code
}

// TestOversizedBodiesReachWholeBodyWriters: a client that writes a whole
// oversized body before reading gets the 413 and its JSON body, not a
// connection reset; normal requests on such connections still work.
func TestOversizedBodiesReachWholeBodyWriters(t *testing.T) {
	t.Run("responses", func(t *testing.T) {
		eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
			c := ts.dialRaw(t)
			resp, body := c.Send(rawRequest("POST", "/responses", "application/json", []byte(`{"input":"hi"}`)))
			if resp.StatusCode != 200 || resp.Close {
				t.Fatalf("normal request: %d close %v: %s", resp.StatusCode, resp.Close, body)
			}
			big := append([]byte(`{"input":"`), bytes.Repeat([]byte("a"), 2<<20)...)
			resp, body = c.Send(rawRequest("POST", "/responses", "application/json", append(big, `"}`...)))
			if resp.StatusCode != 413 || errorCode(t, body) != "request_too_large" || !resp.Close {
				t.Fatalf("2 MiB body: %d close %v: %s", resp.StatusCode, resp.Close, body)
			}
			if !c.Closed() {
				t.Errorf("the connection stayed open after the 413")
			}
		})
	})
	t.Run("assets", func(t *testing.T) {
		big := func(c *configT) { c.Server.Limits.MaxRequestBytes = 16 << 20 } // the asset limit, 10 MiB, applies
		eachStore(t, setup{Config: big}, func(t *testing.T, ts *testServer) {
			mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
			c := ts.dialRaw(t)
			resp, body := c.Send(rawRequest("POST", "/sessions/s/assets", "application/octet-stream", []byte("some bytes")))
			if resp.StatusCode != 201 || resp.Close {
				t.Fatalf("normal upload: %d close %v: %s", resp.StatusCode, resp.Close, body)
			}
			resp, body = c.Send(rawRequest("POST", "/sessions/s/assets", "application/octet-stream", make([]byte, 12<<20)))
			if resp.StatusCode != 413 || errorCode(t, body) != "asset_too_large" || !resp.Close {
				t.Fatalf("12 MiB upload: %d close %v: %s", resp.StatusCode, resp.Close, body)
			}
			// Refused before the body is read: the answer still arrives.
			c = ts.dialRaw(t)
			resp, body = c.Send(rawRequest("POST", "/sessions/nope/assets", "application/octet-stream", make([]byte, 12<<20)))
			if resp.StatusCode != 404 || errorCode(t, body) != "session_not_found" {
				t.Fatalf("12 MiB upload to no session: %d: %s", resp.StatusCode, body)
			}
		})
	})
	t.Run("a2a", func(t *testing.T) {
		eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
			resp, body := ts.dialRaw(t).Send(rawRequest("POST", "/message:send", "application/json", make([]byte, 4<<20)))
			if resp.StatusCode != 400 || !strings.Contains(string(body), "exceeds") {
				t.Fatalf("4 MiB A2A send: %d: %s", resp.StatusCode, body)
			}
		})
	})
	t.Run("unauthenticated", func(t *testing.T) {
		eachStore(t, setup{Config: withTokens}, func(t *testing.T, ts *testServer) {
			resp, body := ts.dialRaw(t).Send(rawRequest("POST", "/responses", "application/json", make([]byte, 8<<20)))
			if resp.StatusCode != 401 || errorCode(t, body) == "" {
				t.Fatalf("8 MiB body without a token: %d: %s", resp.StatusCode, body)
			}
		})
	})
}

// slowPost sends the head of a POST with a 1000-byte body, then a byte of
// the body every 100 ms (for at most 5 s) until the server answers, and
// returns the answer.
func slowPost(t *testing.T, c *testutil.RawConn, path string) (*http.Response, []byte) {
	t.Helper()
	c.Write([]byte("POST " + path + " HTTP/1.1\r\nHost: harnest\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"))
	stop := c.Drip()
	defer stop()
	return c.Read()
}

// TestSlowBodiesAreCutOff: a body that does not arrive within
// server.http.bodyTimeoutSeconds ends with 408 and a closed connection,
// on the neutral API, AG-UI and the relay's public pairing exchange; a
// request refused for want of a token is answered and closed as well.
func TestSlowBodiesAreCutOff(t *testing.T) {
	short := func(c *configT) { c.Server.HTTP.BodyTimeoutSeconds = 0.3 }
	check := func(t *testing.T, ts *testServer, path string, status int, code string) {
		t.Helper()
		c := ts.dialRaw(t)
		resp, body := slowPost(t, c, path)
		if resp.StatusCode != status || errorCode(t, body) != code || !resp.Close {
			t.Fatalf("POST %s: status %d close %v, want %d and close: %s", path, resp.StatusCode, resp.Close, status, body)
		}
		if !c.Closed() {
			t.Errorf("POST %s: the connection stayed open after the %d", path, status)
		}
	}
	eachStore(t, setup{Config: short}, func(t *testing.T, ts *testServer) {
		for _, path := range []string{"/responses", "/sessions", "/agui", "/api/outside-agents/v1/pairings/exchange"} {
			check(t, ts, path, http.StatusRequestTimeout, "request_timeout")
		}
	})
	t.Run("with auth", func(t *testing.T) {
		eachStore(t, setup{Config: func(c *configT) { short(c); withTokens(c) }}, func(t *testing.T, ts *testServer) {
			check(t, ts, "/responses", http.StatusUnauthorized, "unauthorized")
			check(t, ts, "/api/outside-agents/v1/pairings/exchange", http.StatusRequestTimeout, "request_timeout")
		})
	})
}

// TestResponsesOutliveTheBodyTimeout: the body timeout covers the body
// only; a response that streams, or answers as JSON, long after it is
// unaffected.
func TestResponsesOutliveTheBodyTimeout(t *testing.T) {
	const bodyTimeout = 300 * time.Millisecond
	slow := func(c *configT) {
		c.Server.HTTP.BodyTimeoutSeconds = bodyTimeout.Seconds()
		c.Spec.Backend.Echo.DelayMs = 150
		c.Spec.Backend.Echo.ToolCall = true
	}
	eachStore(t, setup{Config: slow}, func(t *testing.T, ts *testServer) {
		start := time.Now()
		frames, _ := ts.stream(`{"input":"one two three four five six seven eight","stream":true}`)
		took := time.Since(start)
		if len(frames) == 0 || frames[len(frames)-1].Event != "response.completed" {
			t.Fatalf("the stream did not complete: %v", frameNames(frames))
		}
		if status, _ := frames[len(frames)-1].Data["status"].(string); status != "completed" {
			t.Fatalf("stream ended %q: %s", status, frames[len(frames)-1].Raw)
		}
		if took < bodyTimeout {
			t.Fatalf("the stream took %v, less than the body timeout: the test proves nothing", took)
		}

		start = time.Now()
		r := ts.Post("/responses", `{"input":"one two three four five six seven eight"}`)
		mustStatus(t, r, 200)
		if status, _ := r.JSON(t)["status"].(string); status != "completed" || time.Since(start) < bodyTimeout {
			t.Fatalf("JSON response %q after %v: %s", status, time.Since(start), r.Body)
		}
	})
}

// TestInvalidUTF8BodiesAreRefused: JSON bodies with bytes that are not
// UTF-8 are refused with 400 on every transport (they used to be accepted
// with U+FFFD in place of the bad bytes).
func TestInvalidUTF8BodiesAreRefused(t *testing.T) {
	const bad = "\xff\xfe"
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"s"}`), 201)
		for _, c := range []struct{ method, path, body string }{
			{"POST", "/responses", `{"input":"` + bad + `"}`},
			{"POST", "/responses", `{"input":"hi","metadata":{"k":"` + bad + `"}}`},
			{"POST", "/sessions", `{"id":"s2","state":{"k":"` + bad + `"}}`},
			{"PATCH", "/sessions/s", `{"stateDelta":{"k":"` + bad + `"}}`},
			{"POST", "/approvals/approval_x", `{"decision":"approve","x":"` + bad + `"}`},
			{"POST", "/client-tools/ct_x", `{"output":"` + bad + `"}`},
			{"POST", "/agui", `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"` + bad + `"}]}`},
			{"POST", "/api/outside-agents/v1/pairings/exchange", `{"code":"` + bad + `","card":{"name":"n","kind":"cli"}}`},
		} {
			r := ts.Do(c.method, c.path, "application/json", []byte(c.body))
			mustStatus(t, r, 400)
			if code := errorCode(t, r.Body); code != "invalid_json" || !strings.Contains(string(r.Body), "UTF-8") {
				t.Errorf("%s %s: %s", c.method, c.path, r.Body)
			}
		}
		// A2A answers in its own shape (HTTP+JSON 1.0 at / in examples/hello).
		r := ts.Do("POST", "/message:send", "application/json",
			[]byte(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"`+bad+`"}]}}`))
		if r.Status != 400 || !strings.Contains(string(r.Body), "UTF-8") || !strings.Contains(string(r.Body), "INVALID_ARGUMENT") {
			t.Errorf("A2A send: %d %s", r.Status, r.Body)
		}
		// Nothing ran: the session has no transcript.
		if r := ts.Get("/sessions/s/messages"); r.Status != 200 || strings.Contains(string(r.Body), "\ufffd") {
			t.Errorf("transcript: %d %s", r.Status, r.Body)
		}
	})
}
