package playground_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/harnest/harnest/config"
)

func TestBackgroundRunReconnectsAfterAReload(t *testing.T) {
	srv := startServer(t, withEcho(func(e *config.EchoBackend) { e.DelayMs = 250 }))
	tb := openTab(t, srv, "/")
	tb.click("checkbox", "Background")
	tb.send("SSE", "in the background")
	tb.waitFor("the response in the URL", `location.search.includes('response=')`)
	tb.navigate(strings.TrimPrefix(tb.location(), srv.URL))
	tb.waitFor("the resumed answer", `(() => { const a = [...document.querySelectorAll('article[aria-label=assistant]')].at(-1);
		return a && a.querySelector('.tag').textContent === 'SSE (resumed)' && a.getAttribute('aria-busy') === 'false' &&
			a.querySelector('.body').textContent === 'Echo: in the background'; })()`)
	if strings.Contains(tb.location(), "response=") {
		t.Errorf("the URL still names the finished response: %s", tb.location())
	}
}

func TestTracesView(t *testing.T) {
	srv := startServer(t, nil)
	other := sessionWithTurns(t, srv, 1) // a response another client made
	tb := openTab(t, srv, "/")
	tb.send("JSON", "first")
	tb.waitAnswer(0, "Echo: first")
	tb.send("Live", "second")
	tb.waitAnswer(1, "Echo: second")
	tb.click("button", "Traces")
	tb.waitFor("three traces", `document.querySelectorAll('#traces details.trace').length === 3`)
	summaries := eval[[]string](tb, `[...document.querySelectorAll('#traces details.trace summary')].map(s => s.textContent)`)
	joined := strings.Join(summaries, "\n")
	if !strings.Contains(summaries[0], "completed · Live") || !strings.Contains(summaries[1], "completed · JSON") || !strings.Contains(joined, "other client") {
		t.Errorf("traces:\n%s", joined)
	}
	tb.do(chromedp.Click(chromedp.CSS(`#traces details.trace summary`)))
	tb.waitFor("the event log", `document.querySelector('#traces .trace-events').textContent.includes('"type":"response.completed"')`)
	_ = other
}

func TestPhoneLayoutAndThemes(t *testing.T) {
	srv := startServer(t, nil)
	tb := openTab(t, srv, "/")
	tb.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	tb.send("SSE", "a long line "+strings.Repeat("word ", 60))
	tb.waitAnswer(0, "Echo: a long line")
	fits := eval[bool](tb, `document.scrollingElement.scrollWidth <= window.innerWidth`)
	if !fits {
		t.Errorf("the page is wider than a phone: %d > 390", eval[int](tb, `document.scrollingElement.scrollWidth`))
	}
	tb.find("button", "Send")
	light := eval[string](tb, `getComputedStyle(document.body).backgroundColor`)
	tb.click("button", "Switch theme") // light
	tb.click("button", "Switch theme") // dark
	dark := eval[string](tb, `getComputedStyle(document.body).backgroundColor`)
	if dark != "rgb(21, 23, 27)" || light == dark {
		t.Errorf("light %s, dark %s", light, dark)
	}
	// Keyboard: Enter in the message box sends.
	tb.typeText("textbox", "Message", "by keyboard\r")
	tb.waitAnswer(1, "Echo: by keyboard")
}

// TestScreenshots writes docs/screenshots/*.png (conversation, approval,
// owner view) when HARNEST_SCREENSHOTS=1:
//
//	HARNEST_SCREENSHOTS=1 go test ./playground -run Screenshots
func TestScreenshots(t *testing.T) {
	if os.Getenv("HARNEST_SCREENSHOTS") != "1" {
		t.Skip("set HARNEST_SCREENSHOTS=1 to write docs/screenshots/")
	}
	dir := filepath.Join("..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shoot := func(tb *tab, name string) {
		png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	srv := startServer(t, nil)
	tb := openTab(t, srv, "/")
	tb.do(chromedp.EmulateViewport(1200, 760))
	tb.do(chromedpSetValue("Message", "Hello! Show me **Markdown**, `code` and a list:\n- one\n- two"))
	tb.click("button", "Send")
	tb.waitAnswer(0, "Echo: Hello!")
	eval[bool](tb, `(document.querySelector('details.thinking').open = true)`)
	shoot(tb, "conversation.png")

	appr := startServer(t, withEcho(func(e *config.EchoBackend) { e.Approval = "send_email" }))
	tb2 := openTab(t, appr, "/")
	tb2.do(chromedp.EmulateViewport(1200, 760))
	tb2.send("SSE", "Send the weekly report to the team")
	tb2.find("button", "Approve")
	shoot(tb2, "approval.png")

	// The owner view of an agent with a router: outside agents and the
	// harness router, with a few routed turns.
	srv = startRouter(t, 3)
	tb3 := openTab(t, srv, "/")
	tb3.do(chromedp.EmulateViewport(1200, 1150))
	tb3.click("button", "Owner")
	tb3.click("button", "Create pairing code")
	tb3.waitFor("a pairing code", `document.querySelector('.pairing-code')`)
	code := eval[string](tb3, `document.querySelector('.pairing-code').textContent`)
	api := srv.URL + "/api/outside-agents/v1/"
	token := participantPost(t, api+"pairings/exchange", "", map[string]any{
		"code": code, "card": map[string]any{"name": "My CLI", "kind": "cli"},
	})["token"].(string)
	tb3.waitFor("the feed stream", `document.getElementById('feed').dataset.live === 'open'`)
	participantPost(t, api+"notices", token, map[string]any{"text": "Build finished on my laptop"})
	participantPost(t, api+"notices", token, map[string]any{"item": map[string]any{"type": "progress", "step": 3, "total": 5, "label": "Tests"}})
	participantPost(t, api+"notices", token, map[string]any{"item": map[string]any{"type": "card", "title": "Release notes", "lines": []string{"3 fixes", "1 feature"}}})
	tb3.waitFor("the feed", `document.querySelectorAll('#feed li').length === 3 && document.getElementById('participants').textContent.includes('My CLI')`)
	tb3.waitFor("the router", `document.querySelector('#router-harnesses tr[data-name=home] .state').textContent === 'ready' &&
		document.querySelectorAll('#router-receipts tr.receipt').length === 3`)
	shoot(tb3, "owner.png")
}

// The header's Routes lists every door /agent names, with its path: the
// ones this server turned on (Open Responses, useChat, MCP) among them.
func TestRoutesList(t *testing.T) {
	srv := startServer(t, func(c *config.Config) {
		c.Server.OpenResponses, c.Server.UseChat, c.Server.MCP = true, true, true
	})
	tb := openTab(t, srv, "/")
	tb.do(chromedp.Click(chromedp.CSS(`#routes summary`))) // <details> opens on its summary
	tb.waitFor("the route list", `document.querySelectorAll('#route-list dt').length > 3`)
	got := eval[string](tb, `document.querySelector('#route-list').innerText`)
	for _, want := range []string{"openResponses", "/v1/responses", "useChat", "/api/chat", "mcp", "/mcp"} {
		if !strings.Contains(got, want) {
			t.Errorf("the route list lacks %q:\n%s", want, got)
		}
	}
}
