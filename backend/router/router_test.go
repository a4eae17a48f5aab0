package router_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

const ownerToken, visitorToken = "owner-token", "visitor-token"

func intp(n int) *int { return &n }

// sh is an exec harness that runs a shell script.
func sh(script string) config.RouterHarness {
	return config.RouterHarness{Exec: &config.ExecBackend{Command: []string{"/bin/sh", "-c", script}}}
}

func echo() config.RouterHarness { return config.RouterHarness{Echo: &config.EchoBackend{}} }

// setup serves a router with an owner and a visitor token.
func setup(r config.RouterBackend) servertest.Setup {
	return servertest.Setup{Config: func(c *config.Config) {
		c.Spec.Backend = config.Backend{Router: &r}
		c.Auth.Tokens = []config.Token{{Token: ownerToken, User: "olive", Owner: true}, {Token: visitorToken, User: "victor"}}
	}}
}

// turnWords collects the words of every turn a test sends, for the scan
// of receipts at the end.
var turnWords = map[string]bool{}

// ask sends one JSON turn and returns the answer text (or "" for an error
// status) and the status.
func ask(t *testing.T, ts *servertest.Server, token, input string, metadata ...string) (string, int) {
	t.Helper()
	for _, w := range strings.Fields(input) {
		turnWords[strings.ToLower(strings.Trim(w, ".,!?"))] = true
	}
	body, _ := json.Marshal(map[string]any{"input": input})
	if len(metadata) > 0 {
		body, _ = json.Marshal(map[string]any{"input": input, "metadata": json.RawMessage(metadata[0])})
	}
	r := ts.As(token).Do("POST", "/responses", "application/json", body)
	if r.Status != 200 {
		return "", r.Status
	}
	var env struct {
		OutputText string `json:"outputText"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatal(err)
	}
	return env.OutputText, r.Status
}

// receipt is a router receipt as the owner route lists it.
type receipt struct {
	Choice     string `json:"choice"`
	AnsweredBy string `json:"answeredBy"`
	Reason     string `json:"reason"`
	Rungs      []struct {
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"rungs"`
	WaitMs     int64 `json:"waitMs"`
	CostMicros int64 `json:"costMicros"`
}

// rungs writes a receipt's rungs as "name:reason,...".
func (r receipt) rungs() string {
	var parts []string
	for _, g := range r.Rungs {
		parts = append(parts, g.Name+":"+g.Reason)
	}
	return strings.Join(parts, ",")
}

// receipts lists every receipt, newest first, page by page.
func receipts(t *testing.T, ts *servertest.Server) ([]receipt, string) {
	t.Helper()
	var all []receipt
	var raw strings.Builder
	path := "/owner/router/receipts?limit=2"
	for range 100 {
		r := ts.As(ownerToken).Get(path)
		servertest.MustStatus(t, r, 200)
		raw.Write(r.Body)
		var page struct {
			Receipts   []receipt `json:"receipts"`
			NextCursor *string   `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Body, &page); err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Receipts...)
		if page.NextCursor == nil {
			break
		}
		path = "/owner/router/receipts?limit=2&cursor=" + *page.NextCursor
	}
	return all, raw.String()
}

// scanReceipts checks that no receipt holds a word of the test's turns.
func scanReceipts(t *testing.T, raw string) {
	t.Helper()
	lower := strings.ToLower(raw)
	for w := range turnWords {
		if len(w) >= 5 && strings.Contains(lower, w) {
			t.Errorf("a receipt holds %q, a word of a turn", w)
		}
	}
}

func post(t *testing.T, ts *servertest.Server, path, body string, status int) {
	t.Helper()
	servertest.MustStatus(t, ts.As(ownerToken).Post(path, body), status)
}

func TestReasons(t *testing.T) {
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{
			"house":  echo(),
			"quick":  echo(),
			"broken": sh("exit 3"),
			"silent": sh("exit 0"),
			"slow":   {Exec: &config.ExecBackend{Command: []string{"/bin/sh", "-c", "sleep 3; echo late"}}, WaitMs: 100},
			"home":   {Relay: &config.RelayBackend{Name: "Nobody"}},
		},
		House: "house", Choice: "quick",
		Tiers: map[string]string{"quick": "quick"},
	}
	servertest.EachStore(t, setup(cfg), func(t *testing.T, ts *servertest.Server) {
		cases := []struct {
			choice, want, reason string
		}{
			{"quick", "Echo: marmalade sandwiches", ""},
			{"broken", "(house answered this one.)\nEcho: marmalade sandwiches", "harness_error"},
			{"silent", "(house answered this one.)\nEcho: marmalade sandwiches", "harness_empty"},
			{"slow", "(house answered this one.)\nEcho: marmalade sandwiches", "harness_timeout"},
			{"home", "(house answered this one.)\nEcho: marmalade sandwiches", "harness_offline"},
			{"model-router:quick", "Echo: marmalade sandwiches", ""},
			{"model-router:deep", "(house answered this one.)\nEcho: marmalade sandwiches", "router_tier_unavailable"},
		}
		for _, c := range cases {
			post(t, ts, "/owner/router/choice", `{"choice":"`+c.choice+`"}`, 200)
			got, status := ask(t, ts, ownerToken, "marmalade sandwiches")
			if status != 200 || got != c.want {
				t.Errorf("choice %s: %d %q; want %q", c.choice, status, got, c.want)
			}
			rs, _ := receipts(t, ts)
			if len(rs) == 0 || rs[0].Reason != c.reason || rs[0].Choice != c.choice {
				t.Errorf("choice %s: receipt %+v; want reason %q", c.choice, rs, c.reason)
			}
		}
		// Paused by the owner.
		post(t, ts, "/owner/router/choice", `{"choice":"quick"}`, 200)
		post(t, ts, "/owner/router/harnesses/quick/pause", ``, 200)
		ask(t, ts, ownerToken, "pineapple")
		if rs, _ := receipts(t, ts); rs[0].Reason != "harness_paused" || rs[0].AnsweredBy != "house" {
			t.Errorf("paused: %+v", rs[0])
		}
		post(t, ts, "/owner/router/harnesses/quick/resume", ``, 200)
		// No choice: the house answers and no receipt is written.
		before, _ := receipts(t, ts)
		post(t, ts, "/owner/router/choice", `{"choice":""}`, 200)
		if got, _ := ask(t, ts, ownerToken, "lemonade"); got != "Echo: lemonade" {
			t.Errorf("no choice: %q", got)
		}
		if after, _ := receipts(t, ts); len(after) != len(before) {
			t.Errorf("no choice wrote a receipt")
		}
		// Owner routes: validated like config, 404 for visitors.
		post(t, ts, "/owner/router/choice", `{"choice":"nonsense"}`, 400)
		post(t, ts, "/owner/router/settings", `{"dailyTurns":5000}`, 400)
		post(t, ts, "/owner/router/harnesses/nobody/pause", ``, 404)
		for _, p := range []string{"/owner/router", "/owner/router/receipts"} {
			servertest.MustStatus(t, ts.As(visitorToken).Get(p), 404)
		}
		servertest.MustStatus(t, ts.As(visitorToken).Post("/owner/router/choice", `{"choice":"quick"}`), 404)
		_, raw := receipts(t, ts)
		scanReceipts(t, raw)
	})
}

func TestCapsAndFallbacks(t *testing.T) {
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{
			"house":  echo(),
			"broken": sh("exit 3"),
			"other":  echo(),
			"priced": {Echo: &config.EchoBackend{}, Pricing: config.RouterPricing{InputPerMTokMicros: 1}},
		},
		Order: []string{"broken", "house", "other", "priced"},
		House: "house", Choice: "broken", PlanDailyTurns: intp(100),
	}
	servertest.EachStore(t, setup(cfg), func(t *testing.T, ts *servertest.Server) {
		post(t, ts, "/owner/router/settings", `{"fallback":"tell_me"}`, 200)
		if got, _ := ask(t, ts, ownerToken, "grapefruit"); got != "broken could not answer this time: it failed." {
			t.Errorf("tell_me: %q", got)
		}
		post(t, ts, "/owner/router/settings", `{"fallback":"next_harness"}`, 200)
		if got, _ := ask(t, ts, ownerToken, "tangerine"); got != "(other answered this one.)\nEcho: tangerine" {
			t.Errorf("next_harness: %q", got)
		}
		post(t, ts, "/owner/router/settings", `{"dailyTurns":2}`, 200)
		ask(t, ts, ownerToken, "clementine")
		rs, raw := receipts(t, ts)
		if rs[0].Reason != "harness_owner_daily_cap" || rs[0].AnsweredBy != "house" {
			t.Errorf("owner cap: %+v", rs[0])
		}
		if rs[1].rungs() != "broken:harness_error,other:" {
			t.Errorf("next_harness rungs: %s", rs[1].rungs())
		}
		scanReceipts(t, raw)
	})
	ladder := cfg
	ladder.Ladder = []string{"priced", "other", "person"}
	ladder.Harnesses = map[string]config.RouterHarness{"house": echo(), "broken": sh("exit 3"), "other": echo(),
		"priced": {Echo: &config.EchoBackend{}, Pricing: config.RouterPricing{InputPerMTokMicros: 1}},
		"shy":    {Echo: &config.EchoBackend{}, NeedsConsent: true}}
	ladder.Order = nil
	ladder.Turns = config.RouterTurns{Visitor: "broken"}
	ladder.PlanDailyTurns = intp(1)
	servertest.EachStore(t, setup(ladder), func(t *testing.T, ts *servertest.Server) {
		if got, _ := ask(t, ts, ownerToken, "blueberry"); got != "(other answered this one.)\nEcho: blueberry" {
			t.Errorf("ladder: %q", got)
		}
		post(t, ts, "/owner/router/settings", `{"paused":["other"]}`, 200)
		post(t, ts, "/owner/router/settings", `{"dailyTurns":1}`, 200)
		ask(t, ts, ownerToken, "raspberry") // over the caps: the house
		rs, raw := receipts(t, ts)
		if rs[0].Reason != "harness_plan_daily_cap" {
			t.Errorf("plan cap: %+v", rs[0])
		}
		if rs[1].rungs() != "broken:harness_error,priced:no_ceiling,other:" {
			t.Errorf("ladder rungs: %s", rs[1].rungs())
		}
		scanReceipts(t, raw)
	})
	ladder.PlanDailyTurns = nil
	ladder.Ladder = []string{"shy", "other", "person"}
	servertest.EachStore(t, setup(ladder), func(t *testing.T, ts *servertest.Server) {
		post(t, ts, "/owner/router/settings", `{"paused":["other"]}`, 200)
		got, _ := ask(t, ts, visitorToken, "strawberry")
		if !strings.Contains(got, "A person will follow up") {
			t.Errorf("person: %q", got)
		}
		rs, raw := receipts(t, ts)
		if rs[0].rungs() != "broken:harness_error,shy:no_consent,other:switch_off,person:" || rs[0].AnsweredBy != "person" {
			t.Errorf("person rungs: %+v %s", rs[0], rs[0].rungs())
		}
		feed := ts.As(ownerToken).Get("/owner/outside-agents/feed")
		if !strings.Contains(string(feed.Body), "handoff") {
			t.Errorf("no hand-off in the owner's feed: %s", feed.Body)
		}
		scanReceipts(t, raw)
	})
}

func TestBreaker(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "healthy")
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{"house": echo(), "flaky": sh("test -f '" + flag + "' && echo fine")},
		House:     "house", Choice: "flaky",
		Breaker: config.RouterBreaker{Failures: 2, WindowSeconds: 60, CoolDownSeconds: 1},
	}
	servertest.EachStore(t, setup(cfg), func(t *testing.T, ts *servertest.Server) {
		os.Remove(flag)
		state := func() string {
			var s struct {
				Harnesses []struct{ Name, State string }
			}
			json.Unmarshal(ts.As(ownerToken).Get("/owner/router").Body, &s)
			for _, h := range s.Harnesses {
				if h.Name == "flaky" {
					return h.State
				}
			}
			return ""
		}
		last := func() string { rs, _ := receipts(t, ts); return rs[0].Reason }
		ask(t, ts, ownerToken, "one")
		ask(t, ts, ownerToken, "two")
		if last() != "harness_error" || state() != "cooling_down" {
			t.Fatalf("after two failures: %s %s", last(), state())
		}
		ask(t, ts, ownerToken, "three")
		if last() != "harness_cooling_down" {
			t.Fatalf("open: %s", last())
		}
		time.Sleep(1100 * time.Millisecond) // the cool-down passes: half-open
		ask(t, ts, ownerToken, "four")      // the trial fails: open again
		if last() != "harness_error" || state() != "cooling_down" {
			t.Fatalf("failed trial: %s %s", last(), state())
		}
		time.Sleep(1100 * time.Millisecond)
		if err := os.WriteFile(flag, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _ := ask(t, ts, ownerToken, "five"); got != "fine\n" && got != "fine" {
			t.Fatalf("trial: %q", got)
		}
		if last() != "" || state() != "ready" {
			t.Fatalf("closed again: %s %s", last(), state())
		}
	})
}

func TestVisitors(t *testing.T) {
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{
			"house": echo(),
			"leaky": sh("cat >/dev/null; echo 'write to ceo@example.com or call +1 415 555 0100 with sk-abcdefghijklmnop12345'"),
			"home":  {Relay: &config.RelayBackend{}},
		},
		House: "house", Choice: "house", Turns: config.RouterTurns{Visitor: "house"},
	}
	servertest.EachStore(t, setup(cfg), func(t *testing.T, ts *servertest.Server) {
		post(t, ts, "/owner/router/turns", `{"visitor":"choice"}`, 200)
		got, _ := ask(t, ts, visitorToken, "mail me at zed@example.org, key ghp_abcdefghijklmnopqrstu")
		if strings.Contains(got, "zed@") || strings.Contains(got, "ghp_") || !strings.Contains(got, "[redacted email]") {
			t.Errorf("the visitor's message reached the harness unredacted: %q", got)
		}
		post(t, ts, "/owner/router/choice", `{"choice":"leaky"}`, 200)
		got, _ = ask(t, ts, visitorToken, "hello there")
		if strings.Contains(got, "ceo@") || strings.Contains(got, "555") || strings.Contains(got, "sk-") {
			t.Errorf("the answer was not screened: %q", got)
		}
		post(t, ts, "/owner/router/choice", `{"choice":"home"}`, 200)
		ask(t, ts, visitorToken, "anyone home")
		if rs, _ := receipts(t, ts); rs[0].Reason != "harness_visitors_off" {
			t.Errorf("visitors off: %+v", rs[0])
		}
	})
}

func TestCapsAcrossReplicas(t *testing.T) {
	cfg := config.RouterBackend{Harnesses: map[string]config.RouterHarness{"house": echo(), "quick": echo()},
		House: "house", Choice: "quick", PlanDailyTurns: intp(3)}
	servertest.EachStoreReplicas(t, 2, setup(cfg), func(t *testing.T, rs []*servertest.Server) {
		for i := range 6 {
			ask(t, rs[i%2], ownerToken, fmt.Sprintf("turn %d", i))
		}
		all, _ := receipts(t, rs[0])
		capped := 0
		for _, r := range all {
			if r.Reason == "harness_plan_daily_cap" {
				capped++
			}
		}
		if len(all) != 6 || capped != 3 {
			t.Errorf("%d receipts, %d capped; want 6 and 3 (a cap of 3 shared by both replicas)", len(all), capped)
		}
	})
}
