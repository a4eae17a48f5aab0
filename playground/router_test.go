package playground_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harnest/harnest/server/servertest"
)

// routerFolder is the agent folder of the router's browser tests.
func routerFolder() string { return filepath.Join(filepath.Dir(testFolder()), "router") }

// startRouter serves the router folder (no auth: the local user is the
// owner) and routes n turns through it, which the house answers (no
// outside agent is paired yet).
func startRouter(t *testing.T, n int) *servertest.Server {
	t.Helper()
	srv := servertest.Start(t, "", servertest.Setup{Folder: routerFolder()})
	for i := range n {
		servertest.MustStatus(t, srv.Post("/responses", `{"input":"turn `+strconv.Itoa(i)+`"}`), 200)
	}
	return srv
}

// harnessStates is the harnesses table as "name:state,...".
const harnessStates = `[...document.querySelectorAll('#router-harnesses tr')].map(r => r.dataset.name + ':' + r.querySelector('.state').textContent).join(',')`

func TestOwnerViewShowsTheRouter(t *testing.T) {
	srv := startRouter(t, 12)
	tb := openTab(t, srv, "/")
	tb.click("button", "Owner")
	tb.waitFor("the router's harnesses", `!document.getElementById('router').hidden && document.querySelectorAll('#router-harnesses tr').length === 3`)
	if got := eval[string](tb, harnessStates); got != "home:offline,quick:ready,careful:ready" {
		t.Errorf("harnesses %s; want the declared order, home offline", got)
	}
	skills := eval[string](tb, `document.querySelector('#router-harnesses tr[data-name=home]').textContent`)
	if want := "homerelaycode, shell"; len(skills) < len(want) || skills[:len(want)] != want {
		t.Errorf("home's row %q", skills)
	}
	summary := eval[string](tb, `document.getElementById('router-summary').textContent`)
	if want := "routed today: 12 of 1000"; !contains(summary, want) {
		t.Errorf("summary %q lacks %q", summary, want)
	}

	// Receipts, a page at a time: the newest ten, then the rest.
	tb.waitFor("the first page of receipts", `document.querySelectorAll('#router-receipts tr.receipt').length === 10 && !document.getElementById('router-more').hidden`)
	first := eval[string](tb, `document.querySelector('#router-receipts tr.receipt').textContent`)
	if !contains(first, "harness_offline") || !contains(first, "home (harness_offline) → quick") {
		t.Errorf("receipt row %q", first)
	}
	tb.click("button", "More receipts")
	tb.waitFor("every receipt", `document.querySelectorAll('#router-receipts tr.receipt').length === 12 && document.getElementById('router-more').hidden`)
	if text := eval[string](tb, `document.getElementById('router-receipts').textContent`); contains(text, "turn 1") {
		t.Errorf("a receipt row shows a turn's text: %q", text)
	}

	// Pause and resume a harness.
	tb.click("button", "Pause careful")
	tb.waitFor("careful paused", harnessStates+` === 'home:offline,quick:ready,careful:paused'`)
	tb.click("button", "Resume careful")
	tb.waitFor("careful resumed", harnessStates+` === 'home:offline,quick:ready,careful:ready'`)

	// The choice.
	if got := eval[string](tb, `document.getElementById('router-choice').value`); got != "home" {
		t.Errorf("choice %q, want home", got)
	}
	eval[string](tb, `document.getElementById('router-choice').value = 'quick'`)
	tb.click("button", "Save choice")
	tb.waitFor("the saved choice", `document.getElementById('router-status').textContent === 'Choice saved.'`)
	if got := srv.Get("/owner/router").JSON(t)["choice"]; got != "quick" {
		t.Errorf("the server's choice is %v, want quick", got)
	}

	// The outside agent pairs: home comes online once the participants
	// are listed again.
	tb.click("button", "Create pairing code")
	tb.waitFor("a pairing code", `document.querySelector('.pairing-code')`)
	code := eval[string](tb, `document.querySelector('.pairing-code').textContent`)
	participantPost(t, srv.URL+"/api/outside-agents/v1/pairings/exchange", "", map[string]any{
		"code": code, "card": map[string]any{"name": "My CLI", "kind": "cli"},
	})
	tb.click("button", "Refresh")
	tb.waitFor("home online", harnessStates+` === 'home:ready,quick:ready,careful:ready'`)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
