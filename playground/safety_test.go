package playground_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/harnest/harnest/config"
)

func TestAgentTextIsNeverHTML(t *testing.T) {
	srv := startServer(t, nil)
	tb := openTab(t, srv, "/")
	attack := `<img src=x onerror=alert(1)> and <script>alert(2)</script> [click](javascript:alert(3)) [ok](http://127.0.0.1:9/x)`
	for i, transport := range []string{"SSE", "JSON", "Live", "AG-UI"} {
		tb.send(transport, attack)
		tb.waitAnswer(i, "Echo: <img src=x onerror=alert(1)> and <script>alert(2)</script>")
	}
	type found struct {
		Images, Scripts, JSLinks, Handlers int
		Link, Rel                          string
	}
	f := eval[found](tb, `(() => {
		const log = document.querySelector('[role=log]');
		const link = log.querySelector('a');
		return {Images: document.querySelectorAll('img:not(.preview)').length + log.querySelectorAll('img').length,
			Scripts: document.querySelectorAll('script').length + log.querySelectorAll('script').length - 1,
			JSLinks: document.querySelectorAll('a[href^="javascript:"]').length,
			Handlers: document.querySelectorAll('[onerror],[onclick],[onload]').length,
			Link: link ? link.href : '', Rel: link ? link.rel : ''};
	})()`)
	if f.Images != 0 || f.Scripts != 0 || f.JSLinks != 0 || f.Handlers != 0 {
		t.Errorf("agent text became HTML: %+v", f)
	}
	if f.Link != "http://127.0.0.1:9/x" || f.Rel != "noopener noreferrer" {
		t.Errorf("the http link: %+v", f)
	}
	tb.mu.Lock()
	dialogs := tb.dialogs
	tb.mu.Unlock()
	if len(dialogs) != 0 {
		t.Errorf("dialogs opened: %q", dialogs)
	}
}

// tinyPNG is a 1×1 PNG image.
var tinyPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
	0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
	0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
	0x44, 0xae, 0x42, 0x60, 0x82,
}

func TestUploadByPickerAndDrop(t *testing.T) {
	srv := startServer(t, nil)
	tb := openTab(t, srv, "/")
	file := filepath.Join(t.TempDir(), "dot.png")
	if err := os.WriteFile(file, tinyPNG, 0o600); err != nil {
		t.Fatal(err)
	}
	tb.do(chromedp.SetUploadFiles(chromedp.ID("file-picker"), []string{file}))
	tb.find("button", "Remove dot.png")
	tb.send("SSE", "look at this")
	tb.waitAnswer(0, "Echo: look at this")
	tb.waitFor("the preview", `document.querySelector('article[aria-label=user] img.preview')?.naturalWidth === 1`)

	// Drag and drop: a dropped image goes into the next message.
	eval[bool](tb, `(() => {
		const bytes = Uint8Array.from(atob('`+base64.StdEncoding.EncodeToString(tinyPNG)+`'), c => c.charCodeAt(0));
		const dt = new DataTransfer();
		dt.items.add(new File([bytes], 'dropped.png', {type: 'image/png'}));
		return document.getElementById('composer').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`)
	tb.find("button", "Remove dropped.png")
	tb.send("JSON", "and this")
	tb.waitAnswer(1, "Echo: and this")

	id := eval[string](tb, `new URLSearchParams(location.search).get('session')`)
	page := call(t, srv, "GET", "/sessions/"+id+"/messages", nil)
	msgs := page["messages"].([]any)
	for _, n := range []int{0, 2} {
		parts, ok := msgs[n].(map[string]any)["content"].([]any)
		if !ok || len(parts) != 2 || parts[1].(map[string]any)["type"] != "image" {
			t.Errorf("message %d: %v", n, msgs[n])
		}
	}
	// A reload shows the attachment in the restored transcript.
	tb.navigate("/?session=" + id)
	tb.waitFor("the restored attachment", `document.querySelectorAll('article[aria-label=user] .file').length === 2`)
}

func TestTokenProtectedServer(t *testing.T) {
	const token = "tok-alice-0123456789"
	srv := startServer(t, func(c *config.Config) {
		c.Auth.Tokens = []config.Token{{Token: token, User: "alice"}}
	})
	tb := openTab(t, srv, "/")
	tb.waitFor("the token notice", `document.getElementById('page-status').textContent.includes('This server needs a token') &&
		document.getElementById('page-status').textContent.includes('Enter a token in the Token field.')`)
	tb.send("SSE", "no token")
	tb.waitFor("the refusal", `document.getElementById('composer-status').textContent.includes('Authentication required')`)

	// The message stays in the box for another try.
	if kept := eval[string](tb, `document.getElementById('message').value`); kept != "no token" {
		t.Errorf("message box %q", kept)
	}
	eval[string](tb, `document.getElementById('message').value = ''`)
	tb.typeText("textbox", "Token", "wrong-token-000000\r")
	tb.waitFor("the bad token notice", `document.getElementById('page-status').textContent.includes('The bearer token is not valid')`)
	eval[string](tb, `document.getElementById('token').value = ''`)
	tb.typeText("textbox", "Token", token+"\r")
	tb.waitFor("the accepted token", `document.getElementById('page-status').textContent === ''`)
	for i, transport := range []string{"SSE", "Live", "JSON", "AG-UI"} {
		tb.send(transport, "hi "+transport)
		tb.waitAnswer(i, "Echo: hi "+transport)
	}
	// The token stays in page memory: no storage, no cookie.
	stored := eval[string](tb, `document.cookie + localStorage.length + sessionStorage.length`)
	if stored != "00" {
		t.Errorf("the page stored something: %q", stored)
	}
}
