package playground_test

import (
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
)

func TestConversationOverJSONAndSSE(t *testing.T) {
	srv := startServer(t, nil)
	tb := openTab(t, srv, "/")
	tb.find("log", "Conversation")
	tb.find("combobox", "Transport")
	tb.find("textbox", "Token")
	tb.find("searchbox", "Session ID")
	tb.find("button", "New session")

	tb.send("JSON", "Hello **world**")
	if got := tb.waitAnswer(0, "Echo: Hello world"); got != "Echo: Hello world" {
		t.Errorf("JSON answer %q", got)
	}
	// Markdown made a <strong>; thinking sits in its own panel, never in the answer.
	tb.waitFor("bold text", `document.querySelector('article[aria-label=assistant] .body strong')?.textContent === 'world'`)
	tb.find("article", "user")
	tb.find("article", "assistant")
	thinking := eval[string](tb, `document.querySelector('article[aria-label=assistant] details.thinking > summary').textContent + '|' +
		document.querySelector('article[aria-label=assistant] details.thinking .thinking-text').textContent`)
	if thinking != "Thinking|Repeating the input back." {
		t.Errorf("thinking panel %q", thinking)
	}
	tool := eval[string](tb, `document.querySelector('article[aria-label=assistant] .card.tool').textContent`)
	if !strings.Contains(tool, "Tool call: echo") || !strings.Contains(tool, "Result") {
		t.Errorf("tool card %q", tool)
	}
	if !strings.Contains(tb.location(), "?session=") {
		t.Errorf("the URL names no session: %s", tb.location())
	}

	tb.send("SSE", "streamed")
	tb.waitAnswer(1, "Echo: streamed")
	msgs := tb.messages()
	if len(msgs) != 4 || msgs[0].Role != "user" || msgs[1].Role != "assistant" || msgs[2].Text != "streamed" {
		t.Fatalf("messages %+v", msgs)
	}
	if strings.Contains(msgs[3].Text, "Repeating") {
		t.Errorf("thinking leaked into the answer: %q", msgs[3].Text)
	}
}

func TestOneConversationAcrossEveryTransport(t *testing.T) {
	srv := startServer(t, nil)
	tb := openTab(t, srv, "/")
	for i, transport := range []string{"JSON", "Live", "AG-UI", "SSE"} {
		tb.send(transport, "turn "+transport)
		if got := tb.waitAnswer(i, "Echo: turn "+transport); got != "Echo: turn "+transport {
			t.Errorf("%s: answer %q", transport, got)
		}
	}
	// Each transport's thinking went to the panel and its tool call to a card.
	n := eval[int](tb, `[...document.querySelectorAll('article[aria-label=assistant]')].filter(a =>
		a.querySelector('details.thinking:not([hidden])') && a.querySelector('.card.tool')).length`)
	if n != 4 {
		t.Errorf("%d of 4 answers show thinking and a tool card", n)
	}
	url := tb.location()
	if !strings.Contains(url, "?session=") {
		t.Fatalf("URL %s", url)
	}
	// One session holds all of it: a reload restores the eight messages.
	tb.navigate(strings.TrimPrefix(url, srv.URL))
	tb.waitFor("the restored transcript", `document.querySelectorAll('[role=log] article').length === 8`)
	msgs := tb.messages()
	if msgs[6].Text != "turn SSE" || msgs[7].Text != "Echo: turn SSE" || msgs[2].Text != "turn Live" || msgs[5].Text != "Echo: turn AG-UI" {
		t.Errorf("restored %+v", msgs)
	}
}

func TestLiveIsOfferedOnlyWhenServed(t *testing.T) {
	srv := startServer(t, func(c *config.Config) { c.Server.Live = false })
	tb := openTab(t, srv, "/")
	tb.waitFor("discovery", `document.getElementById('agent-name').textContent === 'Playground test'`)
	disabled := eval[[]bool](tb, `[...document.getElementById('transport').options].map(o => o.disabled)`)
	if len(disabled) != 4 || disabled[0] || disabled[1] || !disabled[2] || disabled[3] {
		t.Errorf("disabled options (JSON, SSE, Live, AG-UI): %v", disabled)
	}
}
