package playground_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
)

// A second message while a turn runs steers it: the Send button says
// Steer, the message shows where the turn took it (a user message between
// the answer before and after it), and the turn answers it.
func TestSteerWhileATurnRuns(t *testing.T) {
	srv := startServer(t, withEcho(func(e *config.EchoBackend) { e.DelayMs = 400 }))
	tb := openTab(t, srv, "/")
	tb.send("SSE", "first")
	tb.waitFor("the first event", `[...document.querySelectorAll('article[aria-label=assistant]')].at(-1).querySelector('.thinking:not([hidden])')`)
	tb.find("button", "Steer")
	tb.typeText("textbox", "Message", "second")
	tb.click("button", "Steer")
	tb.waitFor("the steer in the log", `[...document.querySelectorAll('article[aria-label=user]')].some(a => a.querySelector('.tag').textContent === 'steer' && a.querySelector('.body').textContent === 'second')`)
	tb.waitFor("the end of the turn", `(() => { const a = [...document.querySelectorAll('article[aria-label=assistant]')].at(-1);
		return a.getAttribute('aria-busy') === 'false' && a.querySelector('.body').textContent.includes('Echo: first'); })()`)
	got := tb.messages()
	var roles []string
	for _, m := range got {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,user,assistant" || got[2].Text != "second" || !strings.Contains(got[3].Text, "Echo: second") {
		t.Fatalf("log after a steer: %+v", got)
	}
	tb.find("button", "Send")
}

// After a reload (the URL names the session only), the page finds the
// session's running response with the session's stream and follows it
// from its first event to its end.
func TestReloadFindsTheRunningResponse(t *testing.T) {
	srv := startServer(t, withEcho(func(e *config.EchoBackend) { e.DelayMs = 300 }))
	tb := openTab(t, srv, "/")
	tb.click("checkbox", "Background")
	tb.send("SSE", "keep going")
	tb.waitFor("the response in the URL", `location.search.includes('response=')`)
	u, err := url.Parse(tb.location())
	if err != nil {
		t.Fatal(err)
	}
	session := u.Query().Get("session")
	if session == "" {
		t.Fatalf("no session in %s", tb.location())
	}
	tb.navigate("/?session=" + url.QueryEscape(session)) // no response ID
	tb.waitFor("the found answer", `(() => { const a = [...document.querySelectorAll('article[aria-label=assistant]')].at(-1);
		return a && a.querySelector('.tag').textContent === 'SSE (resumed)' && a.getAttribute('aria-busy') === 'false' &&
			a.querySelector('.body').textContent === 'Echo: keep going' && a.textContent.includes('running response'); })()`)
}
