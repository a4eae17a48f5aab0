package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// Usage counters and budgets (GET /usage, server.limits.tokensPerDay and
// costPerDay) on two replicas that share one store.

const usageOwnerToken = "owner-token-0123456789"

// usageAgent reports the usage its input asks for: "model in out cost"
// per model call, calls separated by ";" ("-" for no call).
func usageAgent() runtime.Agent {
	return runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		for _, call := range strings.Split(turn.Input, ";") {
			var model string
			var in, out, cost int
			if n, _ := fmt.Sscanf(strings.TrimSpace(call), "%s %d %d %d", &model, &in, &out, &cost); n < 3 {
				continue
			}
			if err := emit(runtime.Event{Type: runtime.EventAgentMetadata, Framework: "test", Model: model,
				Usage: &runtime.Usage{InputTokens: in, OutputTokens: out, CostMicros: cost}}); err != nil {
				return err
			}
		}
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "done"})
	})
}

// usageSetup has alice, bob and an owner, the usage agent and the limits
// set by limit.
func usageSetup(limit func(*config.Limits)) servertest.Setup {
	s := limitsSetup(limit)
	limits := s.Config
	s.Config = func(c *config.Config) {
		limits(c)
		c.Auth.Tokens = append(c.Auth.Tokens, config.Token{Token: usageOwnerToken, User: "owner", Owner: true})
	}
	s.Agent = usageAgent()
	return s
}

// awayFromMidnight waits, when a UTC day ends within the next 10 s, for
// the next one: a test's turns then count on one day.
func awayFromMidnight() {
	now := time.Now().UTC()
	if left := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(now); left < 10*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
}

// usageSum is what the usage of some receipts adds up to.
type usageSum struct {
	Turns, InputTokens, OutputTokens, CostMicros int64
	ByModel                                      map[string][4]int64 // model -> turns, in, out, cost
}

// addReceipt adds one receipt's usage: its usage member, and per model
// its agent_metadata items (the turn counts on its first model).
func (s *usageSum) addReceipt(t *testing.T, body []byte) {
	t.Helper()
	var env struct {
		Status string `json:"status"`
		Usage  *struct {
			InputTokens, OutputTokens, CostMicros int64
		} `json:"usage"`
		Output []struct {
			Type  string `json:"type"`
			Model string `json:"model"`
			Usage *struct {
				InputTokens, OutputTokens, CostMicros int64
			} `json:"usage"`
		} `json:"output"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Status != "completed" {
		t.Fatalf("receipt %s: %v", body, err)
	}
	if s.ByModel == nil {
		s.ByModel = map[string][4]int64{}
	}
	s.Turns++
	first := ""
	if env.Usage != nil {
		s.InputTokens += env.Usage.InputTokens
		s.OutputTokens += env.Usage.OutputTokens
		s.CostMicros += env.Usage.CostMicros
		for i, it := range env.Output {
			if it.Type != "agent_metadata" || it.Usage == nil {
				continue
			}
			m := s.ByModel[it.Model]
			m[1] += it.Usage.InputTokens
			m[2] += it.Usage.OutputTokens
			m[3] += it.Usage.CostMicros
			s.ByModel[it.Model] = m
			if i >= 0 && first == "" {
				first = it.Model
			}
		}
	}
	m := s.ByModel[first]
	m[0]++
	s.ByModel[first] = m
}

// usagePage is GET /usage's body.
type usagePage struct {
	User *string `json:"user"`
	Days []struct {
		Date                                         string
		Turns, InputTokens, OutputTokens, CostMicros int64
		ByModel                                      []struct {
			Backend, Model                               string
			Turns, InputTokens, OutputTokens, CostMicros int64
		} `json:"byModel"`
	} `json:"days"`
	NextCursor *string `json:"nextCursor"`
}

// readUsage reads GET path as a usage sum (every day of the page).
func readUsage(t *testing.T, ts *servertest.Server, path string) usageSum {
	t.Helper()
	r := ts.Get(path)
	servertest.MustStatus(t, r, 200)
	var p usagePage
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatal(err)
	}
	sum := usageSum{ByModel: map[string][4]int64{}}
	for _, d := range p.Days {
		sum.Turns += d.Turns
		sum.InputTokens += d.InputTokens
		sum.OutputTokens += d.OutputTokens
		sum.CostMicros += d.CostMicros
		for _, l := range d.ByModel {
			if l.Backend != "echo" { // examples/hello's backend
				t.Fatalf("a line of backend %q", l.Backend)
			}
			m := sum.ByModel[l.Model]
			sum.ByModel[l.Model] = [4]int64{m[0] + l.Turns, m[1] + l.InputTokens, m[2] + l.OutputTokens, m[3] + l.CostMicros}
		}
	}
	return sum
}

func mustSameUsage(t *testing.T, what string, got, want usageSum) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s: GET /usage says %s; the receipts add up to %s", what, g, w)
	}
}

// TestUsageTotalsAcrossReplicas: a scripted set of turns of two users on
// two replicas; GET /usage on either replica says what their receipts'
// usage adds up to, per user, per model and for everyone, and nobody but
// an owner reads another's.
func TestUsageTotalsAcrossReplicas(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, usageSetup(func(*config.Limits) {}), func(t *testing.T, rs []*servertest.Server) {
		inputs := []string{
			"gpt-a 100 20 1500", "gpt-a 7 3 0; gpt-b 50 50 250", "-", "gpt-b 1 2 3; gpt-b 4 5 6; gpt-a 10 0 0",
			"gpt-c 0 0 999", "gpt-a 33 44 0",
		}
		var alice, bob, everyone usageSum
		for i, in := range inputs {
			for j, who := range []struct {
				token string
				sum   *usageSum
			}{{limitsAliceToken, &alice}, {limitsBobToken, &bob}} {
				if j == 1 && i%2 == 1 {
					continue // bob runs every other turn
				}
				r := rs[(i+j)%2].As(who.token).Post("/responses", fmt.Sprintf(`{"input":%q}`, in))
				servertest.MustStatus(t, r, 200)
				who.sum.addReceipt(t, r.Body)
				everyone.addReceipt(t, r.Body)
			}
		}
		for i, ts := range rs {
			mustSameUsage(t, fmt.Sprintf("alice on replica %d", i), readUsage(t, ts.As(limitsAliceToken), "/usage"), alice)
			mustSameUsage(t, fmt.Sprintf("bob on replica %d", i), readUsage(t, ts.As(limitsBobToken), "/usage"), bob)
			owner := ts.As(usageOwnerToken)
			mustSameUsage(t, "alice read by the owner", readUsage(t, owner, "/usage?user=alice"), alice)
			mustSameUsage(t, "everyone's", readUsage(t, owner, "/usage?all=true"), everyone)
		}
		a := rs[0].As(limitsAliceToken)
		servertest.MustStatus(t, a.Get("/usage?user=bob"), 404)
		servertest.MustStatus(t, a.Get("/usage?all=true"), 404)
		mustSameUsage(t, "alice naming herself", readUsage(t, a, "/usage?user=alice"), alice)
	})
}

// TestUsageQuery: dates, pages and refusals that name the parameter.
func TestUsageQuery(t *testing.T) {
	awayFromMidnight()
	ts := servertest.Start(t, "", usageSetup(func(*config.Limits) {}))
	a := ts.As(limitsAliceToken)
	servertest.MustStatus(t, a.Post("/responses", `{"input":"gpt-a 1 2 3"}`), 200)
	today := time.Now().UTC()
	r := a.Get("/usage?limit=1")
	servertest.MustStatus(t, r, 200)
	var p usagePage
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Days) != 1 || p.Days[0].Date != today.Format(time.DateOnly) || p.NextCursor == nil ||
		*p.NextCursor != today.AddDate(0, 0, -1).Format(time.DateOnly) || p.User == nil || *p.User != "alice" {
		t.Fatalf("first page of one day: %s", r.Body)
	}
	r = a.Get("/usage?limit=1&cursor=" + *p.NextCursor)
	p = usagePage{}
	if err := json.Unmarshal(r.Body, &p); err != nil || len(p.Days) != 0 || p.NextCursor == nil {
		t.Fatalf("second page: %s", r.Body)
	}
	from := today.AddDate(0, 0, -2).Format(time.DateOnly)
	r = a.Get("/usage?limit=3&from=" + from)
	p = usagePage{}
	if err := json.Unmarshal(r.Body, &p); err != nil || len(p.Days) != 1 || p.NextCursor != nil {
		t.Fatalf("the only page: %s", r.Body)
	}
	for _, c := range []struct{ query, names string }{
		{"from=yesterday", "from"},
		{"to=2026-13-01", "to"},
		{"from=2026-03-02&to=2026-03-01", "from"},
		{"from=1999-01-01", "from"},
		{"limit=0", "limit"},
		{"limit=101", "limit"},
		{"cursor=1999-01-01", "cursor"},
		{"all=maybe", "all"},
		{"user=", "user"},
		{"all=true&user=bob", "all"},
	} {
		r := a.Get("/usage?" + c.query)
		servertest.MustStatus(t, r, 400)
		if !strings.HasPrefix(r.JSON(t)["detail"].(string), c.names) {
			t.Errorf("?%s: %s; want a sentence that starts with %q", c.query, r.Body, c.names)
		}
	}
}

// TestTokensPerDayAcrossReplicas: once a user's tokens of the day reach
// tokensPerDay, counted on both replicas, their next turn gets 429 until
// midnight UTC; another user is not affected.
func TestTokensPerDayAcrossReplicas(t *testing.T) {
	awayFromMidnight()
	setup := usageSetup(func(l *config.Limits) { l.TokensPerDay = 100 })
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, rs []*servertest.Server) {
		a, b := rs[0].As(limitsAliceToken), rs[1].As(limitsAliceToken)
		servertest.MustStatus(t, a.Post("/responses", `{"input":"gpt-a 40 20 0"}`), 200)
		servertest.MustStatus(t, b.Post("/responses", `{"input":"gpt-a 30 20 0"}`), 200) // 60 of 100 before it: it runs, to 110
		now := time.Now().UTC()
		untilMidnight := int(time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).Sub(now) / time.Second)
		mustRateLimited(t, a.Post("/responses", `{"input":"gpt-a 1 1 0"}`), untilMidnight-5, untilMidnight+5, "110 of your 100 tokens for today (tokensPerDay")
		mustRateLimited(t, b.Post("/responses", `{"input":"-"}`), untilMidnight-5, untilMidnight+5, "tokensPerDay")
		// The refused turns counted nothing.
		if got := readUsage(t, a, "/usage"); got.Turns != 2 || got.InputTokens+got.OutputTokens != 110 {
			t.Fatalf("alice's usage after the refusals: %+v", got)
		}
		servertest.MustStatus(t, rs[1].As(limitsBobToken).Post("/responses", `{"input":"gpt-a 500 500 0"}`), 200)
		servertest.MustStatus(t, rs[0].As(limitsBobToken).Post("/responses", `{"input":"-"}`), 429)
	})
}

// TestCostPerDayAcrossReplicas: the same with the cost the backend
// reports.
func TestCostPerDayAcrossReplicas(t *testing.T) {
	awayFromMidnight()
	setup := usageSetup(func(l *config.Limits) { l.CostPerDay = 0.5 })
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, rs []*servertest.Server) {
		a, b := rs[0].As(limitsAliceToken), rs[1].As(limitsAliceToken)
		servertest.MustStatus(t, a.Post("/responses", `{"input":"gpt-a 1 1 300000"}`), 200)
		servertest.MustStatus(t, b.Post("/responses", `{"input":"gpt-a 1 1 200000"}`), 200)
		mustRateLimited(t, a.Post("/responses", `{"input":"-"}`), 1, 86400, "spent $0.50 of your $0.50 for today (costPerDay")
		servertest.MustStatus(t, rs[1].As(limitsBobToken).Post("/responses", `{"input":"gpt-a 1 1 400000"}`), 200)
	})
}
