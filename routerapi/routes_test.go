package routerapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

func TestMain(m *testing.M) { testutil.Main(m) }

const ownerToken, visitorToken = "owner-token-0123", "visitor-token-0123"

// setup serves a router with an echo house, an echo harness and a relay
// harness, with an owner and a visitor token.
func setup() servertest.Setup {
	r := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{
			"desk":  {Echo: &config.EchoBackend{}},
			"quick": {Echo: &config.EchoBackend{}, Skills: []string{"chat"}},
			"home":  {Relay: &config.RelayBackend{Name: "Laptop", Kind: "cli"}, Skills: []string{"code", "shell"}},
		},
		Order: []string{"home", "quick", "desk"},
		House: "desk", Choice: "quick", PlanDailyTurns: new(int),
	}
	*r.PlanDailyTurns = 10
	return servertest.Setup{Config: func(c *config.Config) {
		c.Spec.Backend = config.Backend{Router: &r}
		c.Auth.Tokens = []config.Token{{Token: ownerToken, User: "olive", Owner: true}, {Token: visitorToken, User: "victor"}}
	}}
}

// status is GET /owner/router as the owner.
type status struct {
	Harnesses []struct {
		Name, Kind, State string
		Skills            []string
		Allowed           bool
	}
	Choice, Fallback string
	Turns            map[string]string
	DailyTurns       *int
	TurnsToday       int64
}

func readStatus(t *testing.T, ts *servertest.Server) status {
	t.Helper()
	r := ts.As(ownerToken).Get("/owner/router")
	servertest.MustStatus(t, r, 200)
	var s status
	if err := json.Unmarshal(r.Body, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// states writes the harnesses' states as "name:state,...", in order.
func (s status) states() string {
	out := ""
	for i, h := range s.Harnesses {
		if i > 0 {
			out += ","
		}
		out += h.Name + ":" + h.State
	}
	return out
}

func mustCode(t *testing.T, r servertest.Reply, status int, code string) {
	t.Helper()
	servertest.MustStatus(t, r, status)
	if got, _ := r.JSON(t)["code"].(string); got != code {
		t.Errorf("code %q, want %q: %s", got, code, r.Body)
	}
}

func TestOwnersOnly(t *testing.T) {
	servertest.EachStore(t, setup(), func(t *testing.T, ts *servertest.Server) {
		gets := []string{"/owner/router", "/owner/router/receipts"}
		posts := []string{"/owner/router/choice", "/owner/router/turns", "/owner/router/settings",
			"/owner/router/harnesses/quick/pause", "/owner/router/harnesses/quick/resume"}
		for _, p := range gets {
			mustCode(t, ts.As(visitorToken).Get(p), 404, "not_found")
			mustCode(t, ts.As("").Get(p), 401, "unauthorized")
		}
		for _, p := range posts {
			mustCode(t, ts.As(visitorToken).Post(p, `{}`), 404, "not_found")
		}
		if s := readStatus(t, ts); s.Choice != "quick" {
			t.Errorf("a visitor's call changed the choice: %+v", s)
		}
	})
}

func TestStatesAndSettings(t *testing.T) {
	servertest.EachStore(t, setup(), func(t *testing.T, ts *servertest.Server) {
		s := readStatus(t, ts)
		if got := s.states(); got != "home:offline,quick:ready,desk:ready" {
			t.Errorf("states %s; want home offline (no outside agent) and the declared order", got)
		}
		if h := s.Harnesses[0]; h.Kind != "relay" || len(h.Skills) != 2 || !h.Allowed {
			t.Errorf("home: %+v", h)
		}
		// Pairing the outside agent brings the relay harness online;
		// pausing it takes it offline again.
		r := ts.As(ownerToken).Post("/owner/outside-agents/pairings", `{"name":"Laptop","kind":"cli"}`)
		servertest.MustStatus(t, r, 201)
		r = ts.As("").Post("/api/outside-agents/v1/pairings/exchange", `{"code":"`+r.JSON(t)["code"].(string)+`","card":{"name":"Laptop","kind":"cli"}}`)
		servertest.MustStatus(t, r, 201)
		id := r.JSON(t)["participant_id"].(string)
		if got := readStatus(t, ts).states(); got != "home:ready,quick:ready,desk:ready" {
			t.Errorf("paired: %s", got)
		}
		servertest.MustStatus(t, ts.As(ownerToken).Post("/owner/outside-agents/participants/"+id+"/pause", ``), 200)
		if got := readStatus(t, ts).states(); got != "home:offline,quick:ready,desk:ready" {
			t.Errorf("outside agent paused: %s", got)
		}
		// The owner's own pause wins over offline.
		servertest.MustStatus(t, ts.As(ownerToken).Post("/owner/router/harnesses/home/pause", ``), 200)
		servertest.MustStatus(t, ts.As(ownerToken).Post("/owner/router/harnesses/quick/pause", ``), 200)
		if got := readStatus(t, ts).states(); got != "home:paused,quick:paused,desk:ready" {
			t.Errorf("paused: %s", got)
		}
		servertest.MustStatus(t, ts.As(ownerToken).Post("/owner/router/harnesses/quick/resume", ``), 200)
		mustCode(t, ts.As(ownerToken).Post("/owner/router/harnesses/nobody/pause", ``), 404, "harness_not_found")

		// Settings, choice and turns are validated like config.
		r = ts.As(ownerToken).Post("/owner/router/settings", `{"allowed":["quick","desk"],"dailyTurns":4,"fallback":"tell_me"}`)
		servertest.MustStatus(t, r, 200)
		s = readStatus(t, ts)
		if s.Fallback != "tell_me" || s.DailyTurns == nil || *s.DailyTurns != 4 || s.Harnesses[0].Allowed {
			t.Errorf("settings not applied: %+v", s)
		}
		servertest.MustStatus(t, ts.As(ownerToken).Post("/owner/router/turns", `{"visitor":"expertise"}`), 200)
		if s := readStatus(t, ts); s.Turns["visitor"] != "expertise" || s.Turns["owner"] != "choice" {
			t.Errorf("turns: %+v", s.Turns)
		}
		servertest.MustStatus(t, ts.As(ownerToken).Post("/owner/router/choice", `{"choice":"model-router:smart"}`), 200)
		for _, c := range []struct{ path, body string }{
			{"/owner/router/choice", `{"choice":"nobody"}`},
			{"/owner/router/choice", `{"choice":"quick","extra":1}`},
			{"/owner/router/turns", `{"owner":"whoever"}`},
			{"/owner/router/settings", `{"dailyTurns":11}`},
			{"/owner/router/settings", `{"dailyTurns":-1}`},
			{"/owner/router/settings", `{"allowed":["nobody"]}`},
			{"/owner/router/settings", `{"fallback":"shrug"}`},
			{"/owner/router/settings", `not json`},
		} {
			mustCode(t, ts.As(ownerToken).Post(c.path, c.body), 400, "invalid_request")
		}
		if s := readStatus(t, ts); s.Choice != "model-router:smart" || *s.DailyTurns != 4 {
			t.Errorf("a refused change was applied: %+v", s)
		}
	})
}

func TestReceiptsPages(t *testing.T) {
	servertest.EachStore(t, setup(), func(t *testing.T, ts *servertest.Server) {
		for range 3 {
			servertest.MustStatus(t, ts.As(ownerToken).Post("/responses", `{"input":"hi"}`), 200)
		}
		if s := readStatus(t, ts); s.TurnsToday != 3 {
			t.Errorf("turnsToday %d, want 3", s.TurnsToday)
		}
		type page struct {
			Receipts []struct {
				ResponseID, AnsweredBy, Choice string
			}
			NextCursor *string
		}
		read := func(path string) page {
			t.Helper()
			r := ts.As(ownerToken).Get(path)
			servertest.MustStatus(t, r, 200)
			var p page
			if err := json.Unmarshal(r.Body, &p); err != nil {
				t.Fatal(err)
			}
			return p
		}
		first := read("/owner/router/receipts?limit=2")
		if len(first.Receipts) != 2 || first.NextCursor == nil {
			t.Fatalf("first page: %+v", first)
		}
		second := read("/owner/router/receipts?limit=2&cursor=" + *first.NextCursor)
		if len(second.Receipts) != 1 || second.NextCursor != nil {
			t.Fatalf("second page: %+v", second)
		}
		seen := map[string]bool{}
		for _, r := range append(first.Receipts, second.Receipts...) {
			if r.AnsweredBy != "quick" || r.Choice != "quick" || seen[r.ResponseID] {
				t.Errorf("receipt %+v", r)
			}
			seen[r.ResponseID] = true
		}
		mustCode(t, ts.As(ownerToken).Get("/owner/router/receipts?limit=0"), 400, "invalid_request")
		mustCode(t, ts.As(ownerToken).Get("/owner/router/receipts?limit=101"), 400, "invalid_request")
		mustCode(t, ts.As(ownerToken).Get("/owner/router/receipts?cursor=bm90IGEgY3Vyc29y"), 400, "invalid_cursor")
		mustCode(t, ts.As(ownerToken).Get("/owner/router/receipts?cursor=!!"), 400, "invalid_cursor")
	})
}

// The owner routes answer with the house error body, httpapi's:
// {"detail","code"} in that order, no trailing newline, not stored by
// caches.
func TestErrorsAreTheHouseBody(t *testing.T) {
	ts := servertest.Start(t, "", setup())
	r := ts.As(visitorToken).Get("/owner/router")
	want := `{"detail":"Not found","code":"not_found"}`
	if r.Status != 404 || string(r.Body) != want || r.Header.Get("Content-Type") != "application/json" ||
		r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("%d %v %q, want 404 application/json no-store %q", r.Status, r.Header, r.Body, want)
	}
	big := `{"choice":"` + strings.Repeat("a", 64<<10) + `"}`
	mustCode(t, ts.As(ownerToken).Post("/owner/router/choice", big), 413, "request_too_large")
}
