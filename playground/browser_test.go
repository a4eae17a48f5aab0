package playground_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// browser is the one headless Chromium the package's tests share (one tab
// per test); nil when Chromium is missing and not required.
var (
	browser     context.Context
	browserSkip string
)

// chromiumPath is Debian's chromium, or one found on PATH.
func chromiumPath() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	exe := chromiumPath()
	if exe == "" {
		if os.Getenv("HARNEST_REQUIRE_BROWSER") == "1" {
			fmt.Fprintln(os.Stderr, "playground: HARNEST_REQUIRE_BROWSER=1 but Chromium is missing; install it with: apt-get install -y chromium")
			return 1
		}
		browserSkip = "Chromium is not installed (apt-get install -y chromium); set HARNEST_REQUIRE_BROWSER=1 to make this a failure"
		return m.Run()
	}
	profile, err := os.MkdirTemp("", "harnest-playground-chromium-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(profile)
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions"),
	)
	defer stopAlloc()
	ctx, stopBrowser := chromedp.NewContext(alloc)
	defer stopBrowser()
	// The first action starts the browser, which lives as long as the
	// context of that action: ctx itself, bounded by a timer instead.
	timer := time.AfterFunc(30*time.Second, stopBrowser)
	err = chromedp.Do(ctx, chromedp.Navigate("about:blank"))
	timer.Stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "playground: cannot start Chromium:", err)
		if os.Getenv("HARNEST_REQUIRE_BROWSER") == "1" {
			return 1
		}
		browserSkip = "Chromium did not start: " + err.Error()
	} else {
		browser = ctx
	}
	return m.Run()
}

// testFolder is the agent folder of the browser tests.
func testFolder() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "echo")
}

// startServer starts a harnest server on the test folder; change adjusts
// its config (echo options, auth).
func startServer(t *testing.T, change func(*config.Config)) *servertest.Server {
	t.Helper()
	return servertest.Start(t, "", servertest.Setup{Folder: testFolder(), Config: change})
}

// tab is one browser tab of a test, bounded in time, closed at the end.
type tab struct {
	t   *testing.T
	ctx context.Context
	url string

	mu         sync.Mutex
	dialogs    []string
	exceptions []string
}

// openTab opens a new tab on the server's page (path starts with "/").
func openTab(t *testing.T, srv *servertest.Server, path string) *tab {
	t.Helper()
	if browser == nil {
		t.Skip(browserSkip)
	}
	ctx, closeTab := chromedp.NewContext(browser)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	tb := &tab{t: t, ctx: ctx, url: srv.URL}
	t.Cleanup(func() {
		cancel()
		closeTab()
	})
	dialogs := make(chan struct{}, 8)
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			tb.mu.Lock()
			tb.dialogs = append(tb.dialogs, e.Message)
			tb.mu.Unlock()
			select {
			case dialogs <- struct{}{}:
			default:
			}
		case *cdpruntime.EventExceptionThrown:
			tb.mu.Lock()
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			tb.exceptions = append(tb.exceptions, fmt.Sprintf("%s (%s:%d:%d)", msg, d.URL, d.LineNumber+1, d.ColumnNumber+1))
			tb.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	// A dialog blocks the page: dismiss it (and remember it) at once.
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-dialogs:
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{})
			}
		}
	}()
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, e := range tb.exceptions {
			t.Errorf("uncaught exception in the page: %s", e)
		}
	})
	tb.navigate(path)
	return tb
}

// navigate loads a path of the server and waits for the page's shell.
func (tb *tab) navigate(path string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(tb.url + path))
	tb.find("textbox", "Message")
}

func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
}

// byRole selects the elements with this accessible role and name, as a
// screen reader finds them (Accessibility.queryAXTree).
func byRole(role, name string) chromedp.QueryOption {
	return chromedp.ByFunc(func(ctx context.Context, t *chromedp.Target, n *chromedp.Node) ([]cdp.NodeID, error) {
		res, err := cdp.Call(ctx, t, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{
			NodeID: n.NodeID, AccessibleName: name, Role: role,
		})
		if err != nil {
			return nil, err
		}
		var backend []cdp.BackendNodeID
		for _, node := range res.Nodes {
			if !node.Ignored && node.BackendDOMNodeID != 0 {
				backend = append(backend, node.BackendDOMNodeID)
			}
		}
		if len(backend) == 0 {
			return nil, nil
		}
		pushed, err := cdp.Call(ctx, t, dom.PushNodesByBackendIDsToFrontend, dom.PushNodesByBackendIDsToFrontendParams{BackendNodeIDs: backend})
		if err != nil {
			return nil, err
		}
		return pushed.NodeIDs, nil
	})
}

// label names a role query in error messages.
func label(role, name string) string { return role + " " + fmt.Sprintf("%q", name) }

// find waits until an element with the role and name is visible.
func (tb *tab) find(role, name string) {
	tb.t.Helper()
	tb.do(chromedp.WaitVisible(label(role, name), byRole(role, name)))
}

// click clicks the element with the role and name (a real mouse click).
func (tb *tab) click(role, name string) {
	tb.t.Helper()
	tb.do(chromedp.Click(label(role, name), byRole(role, name), chromedp.NodeVisible))
}

// typeText types into the element with the role and name (key events).
func (tb *tab) typeText(role, name, text string) {
	tb.t.Helper()
	tb.do(chromedp.SendKeys(label(role, name), text, byRole(role, name), chromedp.NodeVisible))
}

// choose picks a transport in the Transport combobox.
func (tb *tab) choose(transport string) {
	tb.t.Helper()
	tb.do(chromedp.SetValue(label("combobox", "Transport"), transport, byRole("combobox", "Transport")))
}

// send types a message, picks the transport and presses Send.
func (tb *tab) send(transport, text string) {
	tb.t.Helper()
	tb.choose(transport)
	tb.typeText("textbox", "Message", text)
	tb.click("button", "Send")
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript condition until it is true (bounded by the
// tab's deadline) and says what it waited for when it never is.
func (tb *tab) waitFor(what, expr string) {
	tb.t.Helper()
	// Give up a little before the tab's own deadline, so that the log can
	// still be read for the failure message.
	deadline, _ := tb.ctx.Deadline()
	giveUp := time.NewTimer(time.Until(deadline) - 2*time.Second)
	defer giveUp.Stop()
	for {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool]("Boolean("+expr+")"))
		if err == nil && ok {
			return
		}
		select {
		case <-giveUp.C:
			tb.t.Fatalf("timed out waiting for %s (%s); the log says:\n%s", what, expr, tb.logText())
		case <-time.After(40 * time.Millisecond):
		}
	}
}

// message is one article of the Conversation log.
type message struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// messages reads the Conversation log's articles and their answers.
func (tb *tab) messages() []message {
	tb.t.Helper()
	return eval[[]message](tb, `[...document.querySelector('[role=log][aria-label=Conversation]').querySelectorAll('article')]
		.map(a => ({role: a.getAttribute('aria-label'), text: a.querySelector('.body').textContent}))`)
}

// logText is the whole Conversation log's text, for failure messages.
func (tb *tab) logText() string {
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`(document.querySelector('[role=log]')||{}).innerText + "\n" + (document.getElementById('page-status')||{}).textContent`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return v
}

// waitAnswer waits for the n-th assistant message (0-based) to be done
// and contain want, and returns its text.
func (tb *tab) waitAnswer(n int, want string) string {
	tb.t.Helper()
	sel := fmt.Sprintf(`document.querySelectorAll('[role=log] article[aria-label=assistant]')[%d]`, n)
	tb.waitFor(fmt.Sprintf("assistant message %d with %q", n, want),
		sel+` && `+sel+`.getAttribute('aria-busy') === 'false' && `+sel+`.querySelector('.body').textContent.includes(`+jsString(want)+`)`)
	return eval[string](tb, sel+`.querySelector('.body').textContent`)
}

// jsString quotes a Go string as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "<", `\x3c`)
	return "'" + r.Replace(s) + "'"
}

// location is the page's current URL.
func (tb *tab) location() string {
	tb.t.Helper()
	return eval[string](tb, `window.location.href`)
}

// chromedpSetValue sets a textbox's whole value (for JSON editing).
func chromedpSetValue(name, value string) chromedp.Action[chromedp.Void] {
	return chromedp.SetValue(label("textbox", name), value, byRole("textbox", name))
}
