package playground_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/harnest/harnest/config"
)

// participantPost posts as a paired outside agent (its session token).
func participantPost(t *testing.T, url, token string, body any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("POST %s: %d %s", url, res.StatusCode, raw)
	}
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return out
}

func TestOwnerViewReceivesTheRelayFeed(t *testing.T) {
	srv := startServer(t, nil) // no auth: the local user is the owner
	tb := openTab(t, srv, "/")
	tb.click("button", "Owner")
	tb.find("button", "Create pairing code")
	tb.waitFor("the empty participant list", `document.getElementById('participants').textContent.includes('No outside agents')`)
	if !eval[bool](tb, `document.getElementById('router').hidden`) {
		t.Errorf("the router's section shows on an agent without a router")
	}
	tb.click("button", "Create pairing code")
	tb.waitFor("a pairing code", `document.querySelector('.pairing-code')`)
	code := eval[string](tb, `document.querySelector('.pairing-code').textContent`)

	// The outside agent pairs and speaks while the page is open.
	api := srv.URL + "/api/outside-agents/v1/"
	paired := participantPost(t, api+"pairings/exchange", "", map[string]any{
		"code": code, "card": map[string]any{"name": "My CLI", "kind": "cli"},
	})
	token := paired["token"].(string)
	tb.waitFor("the feed stream", `document.getElementById('feed').dataset.live === 'open'`)
	participantPost(t, api+"notices", token, map[string]any{"text": "Hello from my computer"})
	tb.waitFor("the notice", `document.getElementById('feed').textContent.includes('Hello from my computer')`)
	for _, item := range []map[string]any{
		{"type": "say", "text": "Working on it"},
		{"type": "progress", "step": 2, "total": 5, "label": "Indexing"},
		{"type": "card", "title": "Build", "lines": []string{"all green"}, "link": "/docs"},
		{"type": "gesture", "name": "wave"},
		{"type": "ask", "text": "Shall I go on?"},
	} {
		participantPost(t, api+"notices", token, map[string]any{"item": item})
	}
	tb.waitFor("the stage items", `(() => { const f = document.getElementById('feed').textContent;
		return ['Working on it', 'Indexing 2/5', 'Build', 'all green', 'waves', 'asks: Shall I go on?'].every(s => f.includes(s)); })()`)
	if n := eval[int](tb, `document.querySelectorAll('#feed progress[value="2"]').length`); n != 1 {
		t.Errorf("%d progress bars", n)
	}

	// Participants: pause, resume, disconnect.
	tb.waitFor("the participant", `document.getElementById('participants').textContent.includes('My CLI')`)
	tb.click("button", "Pause My CLI")
	tb.waitFor("the paused participant", `document.getElementById('participants').textContent.includes('paused')`)
	tb.click("button", "Resume My CLI")
	tb.waitFor("the resumed participant", `document.getElementById('participants').textContent.includes('active')`)
	tb.click("button", "Disconnect My CLI")
	tb.waitFor("no participant", `document.getElementById('participants').textContent.includes('No outside agents')`)
}

func TestOwnerViewNeedsAnOwner(t *testing.T) {
	srv := startServer(t, func(c *config.Config) {
		c.Auth.Tokens = []config.Token{{Token: "tok-visitor-0123456789", User: "visitor"}, {Token: "tok-owner-0123456789", User: "owner", Owner: true}}
	})
	tb := openTab(t, srv, "/")
	tb.typeText("textbox", "Token", "tok-visitor-0123456789\r")
	tb.click("button", "Owner")
	tb.waitFor("the refusal", `document.getElementById('owner-status').textContent.includes('needs an owner token')`)
	eval[string](tb, `document.getElementById('token').value = ''`)
	tb.typeText("textbox", "Token", "tok-owner-0123456789\r")
	tb.waitFor("the owner view", `document.getElementById('participants').textContent.includes('No outside agents') &&
		!document.getElementById('owner-status').textContent.includes('needs')`)
}
