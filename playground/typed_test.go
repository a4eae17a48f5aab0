package playground_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/harnest/harnest/config"
)

const typedSchema = `{"title":"Trip","type":"object","required":["city","days"],"additionalProperties":false,
 "properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":7},
 "pace":{"type":"string","enum":["relaxed","busy"]},"note":{"type":"object"}}}`

// TestTypedForm fills a typed agent's form: the page shows a field per
// property (from /agent's contract), sends the object they make, shows
// the refusal that names a bad field's pointer, and the echo of a good one.
func TestTypedForm(t *testing.T) {
	srv := startServer(t, func(c *config.Config) { c.Spec.InputSchema = config.JSONValue(typedSchema) })
	tb := openTab(t, srv, "/")
	tb.find("group", "Typed input")
	tb.find("combobox", "pace")
	tb.choose("JSON")
	tb.typeText("textbox", "city *", "Paris")
	tb.typeText("spinbutton", "days *", "9")
	tb.click("button", "Send")
	tb.waitFor("the refusal naming /days", `document.querySelector('[role=log]').innerText.includes('at /days')`)

	tb.do(chromedpSetValueRole("spinbutton", "days *", "3"))
	tb.click("button", "Send")
	got := tb.waitAnswer(1, `"city":"Paris"`)
	if !strings.Contains(got, `"days":3`) || strings.Contains(got, "pace") {
		t.Fatalf("answer %q", got)
	}
	msgs := tb.messages()
	if msgs[2].Role != "user" || msgs[2].Text != `{"city":"Paris","days":3}` {
		t.Fatalf("the user message shows %+v", msgs[2])
	}
}

// chromedpSetValueRole sets the whole value of the element with the role
// and name.
func chromedpSetValueRole(role, name, value string) chromedp.Action[chromedp.Void] {
	return chromedp.SetValue(label(role, name), value, byRole(role, name))
}
