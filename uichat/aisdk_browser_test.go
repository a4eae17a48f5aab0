package uichat_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/harnest/harnest/server/servertest"
)

// chromium is Debian's chromium, or one on PATH; the test is skipped
// without it (failed under HARNEST_REQUIRE_BROWSER=1).
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("HARNEST_REQUIRE_BROWSER") == "1" {
		t.Fatal("HARNEST_REQUIRE_BROWSER=1 but Chromium is missing: apt-get install -y chromium")
	}
	t.Skip("Chromium is not installed")
	return ""
}

// chatPage bundles conformance/aisdk/page.jsx with esbuild (from the lock
// file) and serves it the way a Next.js app would: the page and its
// script, and /api/ rewritten to the harnest server.
func chatPage(t *testing.T, dir, node string, ts *servertest.Server) string {
	t.Helper()
	bundle := filepath.Join(t.TempDir(), "app.js")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "bundle.mjs", bundle)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
	target, _ := url.Parse(ts.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // streams pass at once
	mux := http.NewServeMux()
	mux.Handle("/api/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Full duplex, so that net/http does not close the request body
		// under the proxy once the streamed answer's headers are out.
		_ = http.NewResponseController(w).EnableFullDuplex()
		proxy.ServeHTTP(w, r)
	}))
	mux.HandleFunc("/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		http.ServeFile(w, r, bundle)
	})
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><html><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>`))
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	return site.URL
}

// A page using @ai-sdk/react's useChat (resume: true) in headless
// Chromium: it sends a message, is reloaded mid-answer and resumes the
// answer (the GET stream replays it from its start), then the Stop button
// stops the turn after the resume: the request is aborted and POST
// /api/chat/{id}/stop cancels the turn on the server.
func TestAISDKBrowser(t *testing.T) {
	dir, node := aisdkDir(t)
	exe := chromium(t)
	ts := servertest.Start(t, "", setup())
	site := chatPage(t, dir, node, ts)

	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(exe), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-extensions", true))
	defer stopAlloc()
	ctx, stopBrowser := chromedp.NewContext(alloc)
	defer stopBrowser()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	words := strings.Repeat("word ", 40)
	// assistant waits until the newest assistant message shows want.
	assistant := func(t *testing.T, want string) string {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => { const m = document.querySelectorAll("#messages li.assistant"); `+
			`const s = m.length ? m[m.length-1].textContent : ""; return s.includes(`+jsString(want)+`) ? s : null })()`,
			chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
		if err != nil {
			t.Fatalf("waiting for the answer to show %q: %v", want, err)
		}
		return got
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(site+"/?chat=browser-1&token=alice-token"),
		chromedp.WaitVisible(chromedp.ID("msg")),
		chromedp.SendKeys(chromedp.ID("msg"), "slow "+words),
		chromedp.Click(chromedp.ID("send")),
	); err != nil {
		t.Fatal(err)
	}
	assistant(t, "Echo: slow word word")

	// Reload mid-answer: the page resumes the running answer.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	before := assistant(t, "Echo: slow")
	after := assistant(t, before+"word word ") // it grows after the resume
	if status, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("status"))); err != nil || status != "streaming" {
		t.Fatalf("status after the resume %q (%v)", status, err)
	}

	// Stop after the resume: the turn is cancelled on the server.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("stop"))); err != nil {
		t.Fatal(err)
	}
	stopped, err := chromedp.Run(ctx, chromedp.Poll[map[string]any](`window.__chat && window.__chat.stopped`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	if stopped["stopped"] != true || stopped["status"] != "cancelled" {
		t.Fatalf("stop answered %v", stopped)
	}
	if code, _ := call(t, ts, "alice-token", "GET", "/api/chat/browser-1/stream", ""); code != http.StatusNoContent {
		t.Fatalf("the chat still runs after stop: %d", code)
	}
	final, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const m = document.querySelectorAll("#messages li.assistant"); return m[m.length-1].textContent })()`))
	if len(final) < len(after) || strings.Count(final, "word") >= 40 {
		t.Fatalf("the answer after the stop: %q", final)
	}
	if code, body := call(t, ts, "alice-token", "GET", "/sessions/browser-1/responses", ""); code != http.StatusOK || !strings.Contains(toJSON(body), `"cancelled"`) {
		t.Fatalf("the session's responses: %d %v", code, body)
	}
}

func jsString(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}
