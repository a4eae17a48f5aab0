package router_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// outsideAgent is an outside agent paired with the owner, speaking the
// relay's HTTP protocol in-process.
type outsideAgent struct {
	t     *testing.T
	ts    *servertest.Server
	token string
}

// pairOutsideAgent pairs an outside agent as the owner.
func pairOutsideAgent(t *testing.T, ts *servertest.Server, name string) *outsideAgent {
	t.Helper()
	r := ts.As(ownerToken).Post("/owner/outside-agents/pairings", `{"name":"`+name+`","kind":"cli"}`)
	servertest.MustStatus(t, r, 201)
	code := r.JSON(t)["code"].(string)
	r = ts.As("").Post("/api/outside-agents/v1/pairings/exchange", `{"code":"`+code+`","card":{"name":"`+name+`","kind":"cli"}}`)
	servertest.MustStatus(t, r, 201)
	return &outsideAgent{t: t, ts: ts, token: r.JSON(t)["token"].(string)}
}

// inboxItem is one question in the outside agent's inbox.
type inboxItem struct {
	RelayID string `json:"relay_id"`
	Text    string `json:"text"`
}

// poll long-polls the inbox for up to wait seconds.
func (a *outsideAgent) poll(wait int) []inboxItem {
	a.t.Helper()
	r := a.ts.As(a.token).Get("/api/outside-agents/v1/inbox?wait=" + itoa(wait))
	servertest.MustStatus(a.t, r, 200)
	var v struct{ Items []inboxItem }
	if err := json.Unmarshal(r.Body, &v); err != nil {
		a.t.Fatalf("inbox: %v: %s", err, r.Body)
	}
	return v.Items
}

// reply answers an item and returns the relay's status.
func (a *outsideAgent) reply(relayID, text string) int {
	a.t.Helper()
	body, _ := json.Marshal(map[string]string{"relay_id": relayID, "text": text})
	return a.ts.As(a.token).Post("/api/outside-agents/v1/replies", string(body)).Status
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// answer is a finished turn: its text and session.
type answer struct {
	status    int
	text      string
	sessionID string
}

// askAsync sends a JSON turn in the background (in session, "" for a new
// one).
func askAsync(ts *servertest.Server, token, input, session string) <-chan answer {
	for _, w := range strings.Fields(input) {
		turnWords[strings.ToLower(w)] = true
	}
	body := map[string]string{"input": input}
	if session != "" {
		body["sessionId"] = session
	}
	b, _ := json.Marshal(body)
	req := ts.As(token).Request("POST", "/responses", "application/json", b)
	ch := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ch <- answer{status: -1, text: err.Error()}
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var env struct {
			OutputText string `json:"outputText"`
			SessionID  string `json:"sessionId"`
		}
		_ = json.Unmarshal(raw, &env)
		ch <- answer{status: resp.StatusCode, text: env.OutputText, sessionID: env.SessionID}
	}()
	return ch
}

func waitAnswer(t *testing.T, ch <-chan answer) answer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(20 * time.Second):
		t.Fatal("the turn did not finish")
	}
	return answer{}
}

// TestLateRelayReply: the outside agent takes the question but answers
// after the harness's waitMs. The house answers at waitMs; the late reply
// is refused by the relay and reaches neither the response, the
// transcript nor the next turn.
func TestLateRelayReply(t *testing.T) {
	const waitMs = 400
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{
			"house": echo(),
			"home":  {Relay: &config.RelayBackend{Name: "Laptop"}, WaitMs: waitMs},
		},
		House: "house", Choice: "home",
	}
	servertest.EachStore(t, setup(cfg), func(t *testing.T, ts *servertest.Server) {
		agent := pairOutsideAgent(t, ts, "Laptop")
		turn := askAsync(ts, ownerToken, "periwinkle question", "")
		items := agent.poll(10)
		if len(items) != 1 || items[0].Text != "periwinkle question" {
			t.Fatalf("inbox %+v, want the one question", items)
		}
		// The outside agent holds the question past waitMs: the house
		// answers without it.
		first := waitAnswer(t, turn)
		if first.status != 200 || first.text != "(house answered this one.)\nEcho: periwinkle question" {
			t.Fatalf("first turn: %d %q; want the house's answer", first.status, first.text)
		}
		rs, _ := receipts(t, ts)
		if len(rs) != 1 || rs[0].Reason != "harness_timeout" || rs[0].AnsweredBy != "house" || rs[0].rungs() != "home:harness_timeout,house:" {
			t.Fatalf("receipt %+v; want harness_timeout answered by the house", rs)
		}
		if rs[0].WaitMs < waitMs {
			t.Errorf("the receipt's wait %d ms is shorter than waitMs %d", rs[0].WaitMs, waitMs)
		}
		// The late reply is refused: the item was withdrawn.
		if status := agent.reply(items[0].RelayID, "stale marzipan"); status == 200 {
			t.Errorf("the relay accepted a reply after the router stopped waiting")
		}
		// The next turn gets its own question and its own answer.
		turn = askAsync(ts, ownerToken, "second question", first.sessionID)
		items = agent.poll(10)
		if len(items) != 1 || items[0].Text != "second question" {
			t.Fatalf("inbox %+v, want only the second question", items)
		}
		if status := agent.reply(items[0].RelayID, "fresh answer"); status != 200 {
			t.Fatalf("reply status %d", status)
		}
		if second := waitAnswer(t, turn); second.status != 200 || second.text != "fresh answer" {
			t.Fatalf("second turn: %d %q; want the outside agent's fresh answer", second.status, second.text)
		}
		messages := ts.As(ownerToken).Get("/sessions/" + first.sessionID + "/messages")
		servertest.MustStatus(t, messages, 200)
		if strings.Contains(string(messages.Body), "marzipan") {
			t.Errorf("the late reply reached the transcript: %s", messages.Body)
		}
		if !strings.Contains(string(messages.Body), "fresh answer") {
			t.Errorf("the transcript lacks the second answer: %s", messages.Body)
		}
		// A question the outside agent never fetched in time is withdrawn:
		// it does not reach the outside agent later.
		third := waitAnswer(t, askAsync(ts, ownerToken, "unfetched question", first.sessionID))
		if third.text != "(house answered this one.)\nEcho: unfetched question" {
			t.Fatalf("third turn: %q", third.text)
		}
		if items := agent.poll(0); len(items) != 0 {
			t.Errorf("a withdrawn question reached the outside agent: %+v", items)
		}
		_, raw := receipts(t, ts)
		if strings.Contains(raw, "marzipan") {
			t.Errorf("a receipt holds the late reply: %s", raw)
		}
		scanReceipts(t, raw)
	})
}

// TestVisitorAnswerStartedInTime: a visitor's answer is held back whole
// to be screened, but an answer whose text started within waitMs is not
// cut off when it goes on longer than that.
func TestVisitorAnswerStartedInTime(t *testing.T) {
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{
			"house":  echo(),
			"steady": {Exec: &config.ExecBackend{Command: []string{"/bin/sh", "-c", "cat >/dev/null; echo first; sleep 1; echo second"}}, WaitMs: 300},
		},
		House: "house", Choice: "steady", Turns: config.RouterTurns{Visitor: "choice"},
	}
	servertest.EachStore(t, setup(cfg), func(t *testing.T, ts *servertest.Server) {
		got, status := ask(t, ts, visitorToken, "hello steady")
		if status != 200 || !strings.Contains(got, "first") || !strings.Contains(got, "second") || strings.Contains(got, "house") {
			t.Fatalf("visitor's answer: %d %q; want the whole answer of steady", status, got)
		}
		rs, _ := receipts(t, ts)
		if len(rs) != 1 || rs[0].Reason != "" || rs[0].AnsweredBy != "steady" {
			t.Fatalf("receipt %+v; want steady's answer without a reason", rs)
		}
	})
}

func jsonOf(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestOfflineIsNotAFailure: a relay harness without its outside agent is
// skipped as offline before it is asked, so its breaker never opens, and
// it answers as soon as the outside agent pairs.
func TestOfflineIsNotAFailure(t *testing.T) {
	cfg := config.RouterBackend{
		Harnesses: map[string]config.RouterHarness{"house": echo(), "home": {Relay: &config.RelayBackend{Name: "Laptop"}}},
		House:     "house", Choice: "home",
		Breaker: config.RouterBreaker{Failures: 2, WindowSeconds: 60, CoolDownSeconds: 600},
	}
	servertest.EachStore(t, setup(cfg), func(t *testing.T, ts *servertest.Server) {
		for range 3 {
			if got, _ := ask(t, ts, ownerToken, "nobody there"); got != "(house answered this one.)\nEcho: nobody there" {
				t.Fatalf("offline: %q", got)
			}
		}
		rs, _ := receipts(t, ts)
		for _, r := range rs {
			if r.Reason != "harness_offline" || r.rungs() != "home:harness_offline,house:" {
				t.Errorf("receipt %+v; want home skipped as offline", r)
			}
		}
		agent := pairOutsideAgent(t, ts, "Laptop")
		turn := askAsync(ts, ownerToken, "somebody there", "")
		items := agent.poll(10)
		if len(items) != 1 {
			t.Fatalf("inbox %+v", items)
		}
		agent.reply(items[0].RelayID, "here I am")
		if got := waitAnswer(t, turn); got.text != "here I am" {
			t.Fatalf("after pairing: %q; want the outside agent's answer", got.text)
		}
	})
}
