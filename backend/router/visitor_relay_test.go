package router_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/backend/router"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
	"github.com/harnest/harnest/store"
)

// visitorsStatus reads the visitors' turns today and a harness's state
// on the owner's page.
func visitorsStatus(t *testing.T, ts *servertest.Server, harness string) (visitorTurns int64, state string) {
	t.Helper()
	var s router.Status
	r := ts.As(ownerToken).Get("/owner/router")
	servertest.MustStatus(t, r, 200)
	if err := jsonOf(r.Body, &s); err != nil {
		t.Fatal(err)
	}
	for _, h := range s.Harnesses {
		if h.Name == harness {
			state = h.State
		}
	}
	return s.VisitorTurnsToday, state
}

// TestVisitorReachesRelayHarness: with the router's visitors on, a
// visitor's turn reaches the outside agent behind a relay harness (whose
// own section says nothing of visitors), redacted; its answer reaches
// the visitor screened, and counts once against the visitors' cap.
func TestVisitorReachesRelayHarness(t *testing.T) {
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{"house": echo(), "home": {Relay: &config.RelayBackend{Name: "Laptop"}}},
		House:     "house", Choice: "home", Turns: config.RouterTurns{Visitor: "choice"},
		Visitors: config.RouterVisitors{Enabled: true, DailyTurns: 5},
		Breaker:  config.RouterBreaker{Failures: 1, WindowSeconds: 60, CoolDownSeconds: 600},
	}
	servertest.EachStore(t, setup(cfg), func(t *testing.T, ts *servertest.Server) {
		agent := pairOutsideAgent(t, ts, "Laptop")
		turn := askAsync(ts, visitorToken, "mail me at zed@example.org, key ghp_abcdefghijklmnopqrstu", "")
		items := agent.poll(10)
		if len(items) != 1 {
			t.Fatalf("inbox %+v; want the visitor's question", items)
		}
		if q := items[0].Text; strings.Contains(q, "zed@") || strings.Contains(q, "ghp_") ||
			!strings.Contains(q, "[redacted email]") || !strings.Contains(q, "mail me at") {
			t.Errorf("the outside agent received %q; want the visitor's question redacted", q)
		}
		if status := agent.reply(items[0].RelayID, "write to ceo@example.com or call +1 415 555 0100"); status != 200 {
			t.Fatalf("reply status %d", status)
		}
		got := waitAnswer(t, turn)
		if got.status != 200 || strings.Contains(got.text, "ceo@") || strings.Contains(got.text, "555") ||
			!strings.Contains(got.text, "write to [redacted email]") {
			t.Errorf("the visitor got %d %q; want the outside agent's answer screened", got.status, got.text)
		}
		rs, raw := receipts(t, ts)
		if len(rs) != 1 || rs[0].AnsweredBy != "home" || rs[0].Reason != "" || rs[0].rungs() != "home:" {
			t.Errorf("receipt %+v; want home's answer without a reason", rs)
		}
		if n, state := visitorsStatus(t, ts, "home"); n != 1 || state != "ready" {
			t.Errorf("visitors' turns today %d, home %s; want 1 and ready", n, state)
		}
		scanReceipts(t, raw)
	})
}

// TestVisitorsOffRelayHarness: with the router's visitors off, a
// visitor's turn for a relay harness is refused as visitors off and the
// house answers; neither the visitors' cap nor the harness's breaker
// counts it, and nothing reaches the outside agent.
func TestVisitorsOffRelayHarness(t *testing.T) {
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{"house": echo(), "home": {Relay: &config.RelayBackend{Name: "Laptop", AllowVisitors: true}}},
		House:     "house", Choice: "home", Turns: config.RouterTurns{Visitor: "choice"},
		Visitors: config.RouterVisitors{Enabled: false, DailyTurns: 5},
		Breaker:  config.RouterBreaker{Failures: 1, WindowSeconds: 60, CoolDownSeconds: 600},
	}
	servertest.EachStore(t, setup(cfg), func(t *testing.T, ts *servertest.Server) {
		agent := pairOutsideAgent(t, ts, "Laptop")
		for range 2 {
			if got, _ := ask(t, ts, visitorToken, "anyone home"); got != "(house answered this one.)\nEcho: anyone home" {
				t.Errorf("visitors off: %q; want the house", got)
			}
		}
		rs, _ := receipts(t, ts)
		for _, r := range rs {
			if r.Reason != "harness_visitors_off" || r.rungs() != "home:harness_visitors_off,house:" || r.AnsweredBy != "house" {
				t.Errorf("receipt %+v; want home refused as visitors off", r)
			}
		}
		if n, state := visitorsStatus(t, ts, "home"); n != 0 || state != "ready" {
			t.Errorf("visitors' turns today %d, home %s; want 0 and ready", n, state)
		}
		if items := agent.poll(0); len(items) != 0 {
			t.Errorf("a visitor's turn reached the outside agent with visitors off: %+v", items)
		}
	})
}

// fakeRelay is the relay as the router sees it: "owner" is the owner and
// every outside agent is connected.
type fakeRelay struct{}

func (fakeRelay) IsOwner(user string) bool { return user == "owner" }
func (fakeRelay) HandOff(context.Context, string, string, string) error {
	return nil
}
func (fakeRelay) Connected(context.Context, config.RelayBackend, string) (bool, error) {
	return true, nil
}

// TestRefusalIsNotAFailure: a relay harness that refuses a visitor's
// turn (the relay's owner-only rule, or any refusal) leaves its own
// reason on the receipt; the turn does not count against the visitors'
// cap and the harness's breaker does not hear of it.
func TestRefusalIsNotAFailure(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		reason string
	}{
		{"owner only", runtime.Errorf(runtime.ErrAgentRefused, "relay_owner_only", "This agent answers its owner only"), "harness_visitors_off"},
		{"refused", runtime.Errorf(runtime.ErrAgentRefused, "not_for_you", "No"), "harness_refused"},
	}
	breaker := config.RouterBreaker{Failures: 1, WindowSeconds: 60, CoolDownSeconds: 600}
	for _, sc := range testutil.Stores(t) {
		for _, c := range cases {
			t.Run(sc.Name+"/"+c.name, func(t *testing.T) {
				st := replicaStores(t, sc.URL)[0]
				cfg := config.RouterBackend{
					Harnesses: map[string]config.RouterHarness{"house": echo(), "home": {Relay: &config.RelayBackend{}}},
					House:     "house", Choice: "home", Turns: config.RouterTurns{Visitor: "choice"},
					Visitors: config.RouterVisitors{Enabled: true, DailyTurns: 1}, Breaker: breaker,
				}
				refusing := runtime.AgentFunc(func(context.Context, *runtime.Turn, runtime.Emit) error { return c.err })
				r, err := router.New(router.Options{Config: cfg, Store: st, Relay: fakeRelay{},
					Harnesses: map[string]runtime.Agent{"house": runtime.AgentFunc(echoAgent), "home": refusing}})
				if err != nil {
					t.Fatal(err)
				}
				for i := range 2 {
					var text strings.Builder
					turn := &runtime.Turn{ResponseID: "resp-" + itoa(i), SessionID: "sess", UserID: "visitor", Input: "hello"}
					if err := r.Run(context.Background(), turn, func(ev runtime.Event) error { text.WriteString(ev.Delta); return nil }); err != nil {
						t.Fatal(err)
					}
					if text.String() != "(house answered this one.)\nEcho: hello" {
						t.Errorf("turn %d: %q; want the house", i, text.String())
					}
				}
				ctx := context.Background()
				page, err := st.ListRouterReceipts(ctx, "", 10, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				for _, rec := range page.Receipts {
					if rec.Reason != c.reason || len(rec.Rungs) != 2 || rec.Rungs[0].Reason != c.reason || rec.AnsweredBy != "house" {
						t.Errorf("receipt %+v; want home refused as %s, then the house", rec, c.reason)
					}
				}
				counts, err := st.RouterCounts(ctx, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				b := breaker.WithDefaults()
				state, err := st.RouterBreakerState(ctx, "home", store.RouterBreakerPolicy{Failures: b.Failures,
					Window: time.Duration(b.WindowSeconds) * time.Second, CoolDown: time.Duration(b.CoolDownSeconds) * time.Second,
					TrialTimeout: 13 * time.Second}, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				// Two refusals with a cap of 1 and a breaker that opens at
				// one failure: neither counted.
				if counts["visitor_turns"] != 0 || state != "closed" {
					t.Errorf("visitors' turns %d, breaker %s; want 0 and closed", counts["visitor_turns"], state)
				}
			})
		}
	}
}
