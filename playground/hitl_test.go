package playground_test

import (
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
)

// withEcho changes the test agent's echo options.
func withEcho(change func(*config.EchoBackend)) func(*config.Config) {
	return func(c *config.Config) { change(c.Spec.Backend.Echo) }
}

func TestApprovalOnEveryTransport(t *testing.T) {
	srv := startServer(t, withEcho(func(e *config.EchoBackend) { e.Approval = "send_email" }))
	tb := openTab(t, srv, "/")
	for i, transport := range []string{"SSE", "JSON", "Live", "AG-UI"} {
		tb.send(transport, "mail "+transport)
		tb.find("region", "Approval send_email")
		card := eval[string](tb, `[...document.querySelectorAll('.card.approval')].at(-1).textContent`)
		if !strings.Contains(card, "Approval needed: send_email") || !strings.Contains(card, "Approve send_email?") {
			t.Errorf("%s: card %q", transport, card)
		}
		tb.click("button", "Approve")
		if got := tb.waitAnswer(i, "Echo: mail "+transport); got != "Echo: mail "+transport {
			t.Errorf("%s: answer %q", transport, got)
		}
		tb.waitFor("the decided card", `[...document.querySelectorAll('.card.approval')].at(-1).textContent.includes('Approved')`)
	}
}

func TestDenial(t *testing.T) {
	srv := startServer(t, withEcho(func(e *config.EchoBackend) { e.Approval = "delete_files" }))
	tb := openTab(t, srv, "/")
	tb.send("SSE", "please")
	tb.click("button", "Deny")
	tb.waitFor("the denial", `document.querySelector('article[aria-label=assistant]').getAttribute('aria-busy') === 'false' &&
		document.querySelector('article[aria-label=assistant]').textContent.includes('Denied: the agent did not answer.')`)
	if got := tb.messages()[1].Text; got != "" {
		t.Errorf("a denied response answered %q", got)
	}
}

func TestClientToolOnEveryTransport(t *testing.T) {
	srv := startServer(t, withEcho(func(e *config.EchoBackend) { e.ClientTool = "get_location" }))
	tb := openTab(t, srv, "/")
	for i, transport := range []string{"SSE", "JSON", "Live", "AG-UI"} {
		tb.send(transport, "where "+transport)
		tb.find("textbox", "Tool output")
		args := eval[string](tb, `[...document.querySelectorAll('.card.client-tool')].at(-1).textContent`)
		if !strings.Contains(args, "Client tool: get_location") || !strings.Contains(args, `"input": "where `+transport+`"`) {
			t.Errorf("%s: card %q", transport, args)
		}
		tb.do(chromedpSetValue("Tool output", `{"city":"Oslo"}`))
		tb.click("button", "Send output")
		want := `Echo: where ` + transport + ` (get_location said: {"city":"Oslo"})`
		if got := tb.waitAnswer(i, want); got != want {
			t.Errorf("%s: answer %q", transport, got)
		}
	}
}

func TestCancel(t *testing.T) {
	srv := startServer(t, withEcho(func(e *config.EchoBackend) { e.DelayMs = 3000 }))
	tb := openTab(t, srv, "/")
	for _, transport := range []string{"SSE", "Live"} {
		tb.send(transport, "slow "+transport)
		// The Cancel button shows while the response runs (after its first event).
		tb.waitFor("the first event", `[...document.querySelectorAll('article[aria-label=assistant]')].at(-1).querySelector('.thinking:not([hidden])')`)
		tb.click("button", "Cancel")
		tb.waitFor("the cancelled response", `(() => { const a = [...document.querySelectorAll('article[aria-label=assistant]')].at(-1);
			return a.getAttribute('aria-busy') === 'false' && a.textContent.includes('Cancelled'); })()`)
		if hidden := eval[bool](tb, `document.getElementById('cancel').hidden`); !hidden {
			t.Errorf("%s: Cancel still shown after the response ended", transport)
		}
	}
}
