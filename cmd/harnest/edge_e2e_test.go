package main

// End-to-end tests of the edges a fault campaign found, on the real binary:
// slow bodies, oversized bodies written whole before the answer is read,
// and log lines that a client's long path would blow up.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
)

// rawExchange writes head and then body (or, with drip, a byte of body
// every 100 ms for at most 5 s) on a new connection to h, all of it before
// reading (as Python's urllib does), and reads the answer and whether the
// server closed the connection after it.
func (h *harnest) rawExchange(t *testing.T, head string, body []byte, drip bool) (resp *http.Response, answer []byte, closed bool) {
	t.Helper()
	u, _ := url.Parse(h.URL)
	c := testutil.DialRaw(t, u.Host)
	defer c.Close()
	if drip {
		c.Write([]byte(head))
		stop := c.Drip()
		defer stop()
	} else {
		c.Write([]byte(head), body)
	}
	resp, answer = c.Read()
	return resp, answer, c.Closed()
}

func TestEdgeBodiesAndLogLines(t *testing.T) {
	t.Parallel()
	const token = "tok-edge-0123456789"
	for _, st := range testutil.Stores(t) {
		t.Run(st.Name, func(t *testing.T) {
			dir := agentFolder(t, "", prefixed(t)+"server:\n  http:\n    bodyTimeoutSeconds: 0.5\n"+
				"auth:\n  tokens:\n    - token: ${E2E_TOKEN}\n      user: alice\n")
			var args []string
			if st.URL != "" {
				args = []string{"--redis-url", st.URL}
			}
			h := startHarnest(t, dir, []string{"E2E_TOKEN=" + token}, append(args, "--log-format", "json")...)
			auth := "Authorization: Bearer " + token + "\r\n"
			post := func(path, extra string, length int) string {
				return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: harnest\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n", path, extra, length)
			}

			// Slow bodies end with 408, with a token or on the public pairing exchange.
			for _, c := range []struct{ path, extra string }{
				{"/responses", auth}, {"/api/outside-agents/v1/pairings/exchange", ""},
			} {
				resp, body, closed := h.rawExchange(t, post(c.path, c.extra, 1000)+"{", nil, true)
				if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), `"code":"request_timeout"`) || !closed {
					t.Errorf("slow body to %s: %d closed %v: %s", c.path, resp.StatusCode, closed, body)
				}
			}

			// An oversized body written whole before reading gets its 413.
			big := `{"input":"` + strings.Repeat("a", 2<<20) + `"}`
			resp, body, closed := h.rawExchange(t, post("/responses", auth, len(big)), []byte(big), false)
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"code":"request_too_large"`) || !closed {
				t.Errorf("2 MiB body: %d closed %v: %s", resp.StatusCode, closed, body)
			}
			small := `{"input":"hi"}`
			if resp, body, _ := h.rawExchange(t, post("/responses", auth, len(small)), []byte(small), false); resp.StatusCode != 200 {
				t.Errorf("normal body: %d: %s", resp.StatusCode, body)
			}

			// Twenty unauthenticated 900 KB paths write twenty short log lines.
			long := "/" + strings.Repeat("p", 900_000)
			for i := 0; i < 20; i++ {
				mustStatus(t, h.get(t, long), http.StatusUnauthorized)
			}
			h.mustStop(t)
			lines := 0
			for _, line := range strings.Split(strings.TrimRight(h.stderr.String(), "\n"), "\n") {
				if len(line) > 2048 {
					t.Errorf("a log line of %d bytes: %.300s…", len(line), line)
				}
				var rec map[string]any
				if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" &&
					strings.HasSuffix(fmt.Sprint(rec["path"]), "…(900001 bytes)") {
					lines++
				}
			}
			if lines != 20 {
				t.Errorf("%d request lines for the long paths, want 20", lines)
			}
		})
	}
}
