package playground_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/server/servertest"
)

// call sends a JSON request to the server (with the server's token, if
// any) and decodes the answer into a map.
func call(t *testing.T, srv *servertest.Server, method, path string, body any) map[string]any {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, srv.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if srv.Token != "" {
		req.Header.Set("Authorization", "Bearer "+srv.Token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	out := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return out
}

// sessionWithTurns makes a session holding n turns (2n messages).
func sessionWithTurns(t *testing.T, srv *servertest.Server, n int) string {
	t.Helper()
	id := call(t, srv, "POST", "/sessions", map[string]any{})["id"].(string)
	for i := range n {
		call(t, srv, "POST", "/responses", map[string]any{"input": fmt.Sprintf("message %d", i), "sessionId": id})
	}
	return id
}

func TestDeepLinkRestoresATranscriptOfSeveralPages(t *testing.T) {
	srv := startServer(t, nil)
	id := sessionWithTurns(t, srv, 60) // 120 messages: two pages of 100
	tb := openTab(t, srv, "/?session="+id)
	tb.waitFor("120 restored messages", `document.querySelectorAll('[role=log] article').length === 120`)
	msgs := tb.messages()
	if msgs[0].Text != "message 0" || msgs[119].Text != "Echo: message 59" || msgs[100].Text != "message 50" {
		t.Errorf("first %+v, 100th %+v, last %+v", msgs[0], msgs[100], msgs[119])
	}
	if got := eval[string](tb, `document.getElementById('current-session').textContent`); got != id {
		t.Errorf("current session %q", got)
	}
	// The conversation continues in the restored session.
	tb.send("SSE", "one more")
	tb.waitAnswer(60, "Echo: one more")
	page := call(t, srv, "GET", "/sessions/"+id+"/messages?limit=100&cursor=", nil)
	if page["nextCursor"] == nil {
		t.Error("the session should hold more than one page")
	}
}

// TestRestoredSessionPaint measures the time to first paint of a restored
// 100-message session (logged for bench/README.md, never asserted).
func TestRestoredSessionPaint(t *testing.T) {
	srv := startServer(t, nil)
	id := sessionWithTurns(t, srv, 50)
	tb := openTab(t, srv, "/?session="+id)
	tb.waitFor("the paint mark", `performance.getEntriesByName('harnest:transcript-painted').length === 1`)
	type timing struct {
		Start, Rendered, Painted, FirstPaint, Messages float64
	}
	m := eval[timing](tb, `(() => {
		const one = (n) => performance.getEntriesByName(n)[0];
		const fp = performance.getEntriesByType('paint').find(p => p.name === 'first-contentful-paint');
		return {Start: one('harnest:restore-start').startTime, Rendered: one('harnest:transcript-rendered').startTime,
			Painted: one('harnest:transcript-painted').startTime, FirstPaint: fp ? fp.startTime : -1,
			Messages: one('harnest:transcript-painted').detail.messages};
	})()`)
	if m.Messages != 100 {
		t.Errorf("restored %v messages, want 100", m.Messages)
	}
	t.Logf("restored 100-message session: first contentful paint of the page %.0f ms; transcript painted %.0f ms after navigation start (%.0f ms after the restore began, %.0f ms of it rendering)",
		m.FirstPaint, m.Painted, m.Painted-m.Start, m.Painted-m.Rendered)
}

func TestSessionPicker(t *testing.T) {
	srv := startServer(t, nil)
	var ids []string
	for range 23 { // more than one page of the picker (20)
		ids = append(ids, call(t, srv, "POST", "/sessions", map[string]any{})["id"].(string))
	}
	target := sessionWithTurns(t, srv, 1)
	tb := openTab(t, srv, "/")
	tb.waitFor("the first page", `document.querySelectorAll('#session-list .session-item').length === 20`)
	tb.click("button", "More sessions")
	tb.waitFor("the second page", `document.querySelectorAll('#session-list .session-item').length === 24`)

	// Filter by part of the ID, then select. The part is the ID's random
	// end: a server-made ID begins with the time it was made (a version 7
	// UUID), which sessions made together share.
	tb.typeText("searchbox", "Session ID", target[len(target)-10:])
	tb.waitFor("the filtered list", `document.querySelectorAll('#session-list .session-item').length === 1`)
	tb.click("button", target)
	tb.waitFor("the transcript", `document.querySelectorAll('[role=log] article').length === 2`)
	if !strings.HasSuffix(tb.location(), "/?session="+target) {
		t.Errorf("URL %s", tb.location())
	}

	// The state is shown and edited with PATCH stateDelta.
	tb.do(chromedpSetValue("Session state (JSON)", `{"city": "Oslo"}`))
	tb.click("button", "Save state")
	tb.waitFor("the saved state", `document.getElementById('state-status').textContent === 'State saved.'`)
	state := call(t, srv, "GET", "/sessions/"+target, nil)["state"].(map[string]any)
	if state["city"] != "Oslo" {
		t.Errorf("state %v", state)
	}

	// New session: an empty log and the new ID in the URL.
	tb.click("button", "New session")
	tb.waitFor("a new session", `document.querySelectorAll('[role=log] article').length === 0 && !location.search.includes(`+jsString(target)+`)`)
	fresh := eval[string](tb, `new URLSearchParams(location.search).get('session')`)
	if fresh == "" || fresh == target {
		t.Errorf("new session %q", fresh)
	}
	tb.click("button", "Delete session")
	tb.waitFor("the deletion", `!location.search.includes('session=')`)
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		res, _ := get(t, srv.URL+"/sessions/"+fresh)
		if res.StatusCode == http.StatusNotFound {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("session %s still exists", fresh)
	_ = ids
}
