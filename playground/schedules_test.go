package playground_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/harnest/harnest/config"
)

// The Schedules view creates a paused schedule, fires it with Run now and
// lists the fire with its response, whose session opens in the chat.
func TestSchedulesView(t *testing.T) {
	srv := startServer(t, nil)
	tb := openTab(t, srv, "/")
	tb.click("button", "Schedules")
	tb.typeText("textbox", "When", "@every 1h")
	tb.typeText("textbox", "Input", "hello from a schedule")
	tb.click("checkbox", "Paused")
	tb.click("button", "Create schedule")
	tb.waitFor("the schedule's row", `document.querySelectorAll('#schedule-rows tr').length === 1 &&
		document.querySelector('#schedule-rows tr').textContent.includes('paused')`)
	tb.do(chromedp.Click(chromedp.CSS(`#schedule-rows tr td.actions button:nth-child(2)`)))
	tb.waitFor("the fire", `(document.querySelector('#schedule-fires .fire') || {textContent: ''}).textContent.includes('#1 ')`)
	fire := eval[string](tb, `document.querySelector('#schedule-fires .fire').textContent`)
	if !strings.Contains(fire, "started") || !strings.Contains(fire, "run now") || !strings.Contains(fire, "resp_") {
		t.Fatalf("fire: %q", fire)
	}
	href := eval[string](tb, `document.querySelector('#schedule-fires .fire a').getAttribute('href')`)
	tb.navigate(href)
	tb.waitFor("the fire's turn in the chat", `document.querySelector('[role=log]').textContent.includes('Echo: hello from a schedule')`)
}

// A typed agent's schedule takes a JSON object typed into Input: the row
// shows the object, and Run now sends it as the turn's typed input.
func TestSchedulesViewTypedInput(t *testing.T) {
	srv := startServer(t, func(c *config.Config) { c.Spec.InputSchema = config.JSONValue(typedSchema) })
	tb := openTab(t, srv, "/")
	tb.click("button", "Schedules")
	tb.typeText("textbox", "When", "@every 1h")
	tb.typeText("textbox", "Input", `{"city": "Rome", "days": 2}`)
	tb.click("checkbox", "Paused")
	tb.click("button", "Create schedule")
	tb.waitFor("the schedule's row", `document.querySelectorAll('#schedule-rows tr').length === 1 &&
		document.querySelector('#schedule-rows tr').textContent.includes('{"city":"Rome","days":2}')`)
	tb.do(chromedp.Click(chromedp.CSS(`#schedule-rows tr td.actions button:nth-child(2)`)))
	tb.waitFor("the fire", `(document.querySelector('#schedule-fires .fire') || {textContent: ''}).textContent.includes('#1 ')`)
	href := eval[string](tb, `document.querySelector('#schedule-fires .fire a').getAttribute('href')`)
	tb.navigate(href)
	tb.waitFor("the fire's typed turn in the chat", `document.querySelector('[role=log]').textContent.includes('"city":"Rome"')`)
}
