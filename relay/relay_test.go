package relay_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/relay/agent"
)

func outputText(t testing.TB, r reply) string {
	t.Helper()
	mustStatus(t, r, 200)
	s, _ := r.JSON(t)["outputText"].(string)
	return s
}

func TestPairingAndTurn(t *testing.T) {
	eachStore(t, envSetup{}, func(t *testing.T, e *env) {
		// Only the owner creates codes; others get 404.
		mustCode(t, e.do("POST", "/owner/outside-agents/pairings", visitorToken, `{"name":"My CLI","kind":"cli"}`), 404, "not_found")
		mustStatus(t, e.do("POST", "/owner/outside-agents/pairings", "", `{"name":"My CLI","kind":"cli"}`), 401)
		mustCode(t, e.do("POST", "/owner/outside-agents/pairings", ownerToken, `{"name":"My CLI","kind":"CLI!"}`), 422, "invalid_request")

		r := e.do("POST", "/owner/outside-agents/pairings", ownerToken, `{"name":"My CLI","kind":"cli"}`)
		mustStatus(t, r, 201)
		code := r.JSON(t)["code"].(string)
		ex := func(name, kind string) reply {
			return e.do("POST", "/api/outside-agents/v1/pairings/exchange", "",
				`{"code":"`+code+`","card":{"name":"`+name+`","kind":"`+kind+`","description":"Local assistant","skills":[{"id":"summarize","name":"Summarize"}]}}`)
		}
		mustCode(t, ex("My CLI", "codex"), 422, "card_mismatch")
		r = ex("My CLI", "cli")
		mustStatus(t, r, 201)
		v := r.JSON(t)
		token, pid := v["token"].(string), v["participant_id"].(string)
		exp, err := time.Parse(time.RFC3339, v["expires_at"].(string))
		if err != nil || exp.Sub(time.Now()) < 7*time.Hour+59*time.Minute {
			t.Fatalf("expires_at %v (%v)", v["expires_at"], err)
		}
		mustCode(t, ex("My CLI", "cli"), 401, "invalid_code") // single use

		r = e.do("GET", "/api/outside-agents/v1/session/status", token, "")
		mustStatus(t, r, 200)
		if s := r.JSON(t); s["participant_id"] != pid || s["state"] != "active" {
			t.Fatalf("status %s", r.Body)
		}
		mustCode(t, e.do("GET", "/api/outside-agents/v1/session/status", "nope", ""), 401, "invalid_session")
		mustCode(t, e.do("GET", "/api/outside-agents/v1/inbox", "", ""), 401, "invalid_session")

		if items := e.inbox(token, 0); len(items) != 0 {
			t.Fatalf("inbox not empty: %v", items)
		}
		// A turn becomes an inbox item; the long poll wakes for it.
		done := e.turn(ownerToken, "What is 2+2?")
		items := e.inbox(token, 10)
		if len(items) != 1 || items[0].Text != "What is 2+2?" || items[0].RelayID == "" {
			t.Fatalf("items %+v", items)
		}
		asked, _ := time.Parse(time.RFC3339, items[0].AskedAt)
		deadline, _ := time.Parse(time.RFC3339, items[0].DeadlineAt)
		if d := deadline.Sub(asked); d != 60*time.Second {
			t.Fatalf("deadline %v after asking", d)
		}
		// Items repeat until answered.
		if again := e.inbox(token, 0); len(again) != 1 || again[0].RelayID != items[0].RelayID {
			t.Fatalf("item did not repeat: %+v", again)
		}
		mustCode(t, e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"`+items[0].RelayID+`","text":"   "}`), 422, "invalid_reply")
		mustCode(t, e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"`+items[0].RelayID+`","text":"`+strings.Repeat("é", 4001)+`"}`), 422, "invalid_reply")
		mustCode(t, e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"x","text":"4","extra":1}`), 422, "invalid_reply")
		mustCode(t, e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"nope","text":"4"}`), 404, "item_not_found")
		r = e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"`+items[0].RelayID+`","text":"Four, as the relay says."}`)
		mustStatus(t, r, 200)
		if r.JSON(t)["accepted"] != true {
			t.Fatalf("reply %s", r.Body)
		}
		if got := outputText(t, wait(t, done)); got != "Four, as the relay says." {
			t.Fatalf("answer %q", got)
		}
		if again := e.inbox(token, 0); len(again) != 0 {
			t.Fatalf("answered item repeated: %+v", again)
		}
		mustCode(t, e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"`+items[0].RelayID+`","text":"again"}`), 409, "already_answered")

		// Visitors do not reach the outside agent by default: a refusal
		// (404), not an invitation to retry.
		r = wait(t, e.turn(visitorToken, "hi"))
		mustCode(t, r, 404, "relay_owner_only")

		// The owner sees the participant; disconnect ends its token.
		r = e.do("GET", "/owner/outside-agents/participants", ownerToken, "")
		mustStatus(t, r, 200)
		if !strings.Contains(string(r.Body), pid) || !strings.Contains(string(r.Body), `"state":"active"`) {
			t.Fatalf("participants %s", r.Body)
		}
		mustStatus(t, e.do("POST", "/owner/outside-agents/participants/"+pid+"/disconnect", ownerToken, ""), 204)
		mustCode(t, e.do("GET", "/api/outside-agents/v1/session/status", token, ""), 401, "invalid_session")
		mustCode(t, e.do("POST", "/owner/outside-agents/participants/"+pid+"/pause", ownerToken, ""), 404, "participant_not_found")

		// No participant: the turn fails at once, as unavailable (503).
		start := time.Now()
		r = wait(t, e.turn(ownerToken, "anyone?"))
		mustCode(t, r, 503, "relay_no_participant")
		if time.Since(start) > 5*time.Second {
			t.Fatalf("turn without participant took %v", time.Since(start))
		}
	})
}

func TestPauseExpiryAndCap(t *testing.T) {
	eachStore(t, envSetup{backend: &config.RelayBackend{Name: "Box", Kind: "cli"}}, func(t *testing.T, e *env) {
		other, _ := e.pair("Other", "cli")
		token, pid := e.pair("Box", "cli")

		done := e.turn(ownerToken, "q1")
		items := e.inbox(token, 10)
		if len(items) != 1 {
			t.Fatalf("items %+v", items)
		}
		if got := e.inbox(other, 0); len(got) != 0 {
			t.Fatalf("the configured participant was not picked: %+v", got)
		}
		// Pausing empties the inbox, refuses replies and fails the waiting
		// turn at once.
		r := e.do("POST", "/owner/outside-agents/participants/"+pid+"/pause", ownerToken, "")
		mustStatus(t, r, 200)
		if r.JSON(t)["state"] != "paused" {
			t.Fatalf("pause: %s", r.Body)
		}
		mustCode(t, wait(t, done), 503, "relay_participant_paused")
		if got := e.inbox(token, 1); len(got) != 0 {
			t.Fatalf("paused inbox: %+v", got)
		}
		mustCode(t, e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"`+items[0].RelayID+`","text":"late"}`), 409, "participant_paused")
		st := e.do("GET", "/api/outside-agents/v1/session/status", token, "")
		if st.JSON(t)["state"] != "paused" {
			t.Fatalf("status %s", st.Body)
		}
		mustCode(t, wait(t, e.turn(ownerToken, "while paused")), 503, "relay_participant_paused")
		mustStatus(t, e.do("POST", "/owner/outside-agents/participants/"+pid+"/resume", ownerToken, ""), 200)

		// At most five pending items: the sixth turn fails at once.
		var turns []<-chan reply
		for i := 0; i < 5; i++ {
			turns = append(turns, e.turn(ownerToken, "q"+strconv.Itoa(i)))
		}
		deadlineWait := time.Now().Add(10 * time.Second)
		for len(e.inbox(token, 0)) < 5 && time.Now().Before(deadlineWait) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := len(e.inbox(token, 0)); n != 5 {
			t.Fatalf("%d pending, want 5", n)
		}
		mustCode(t, wait(t, e.turn(ownerToken, "sixth")), 503, "relay_participant_busy")
		// The deadline passes: replies are not accepted, turns fail.
		pending := e.inbox(token, 0)
		e.Clock.Advance(61 * time.Second)
		r = e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"`+pending[0].RelayID+`","text":"too late"}`)
		if r.Status != 410 || r.JSON(t)["accepted"] != false {
			t.Fatalf("late reply: %d %s", r.Status, r.Body)
		}
		for _, ch := range turns {
			mustCode(t, wait(t, ch), 503, "relay_deadline_expired")
		}
		if got := e.inbox(token, 0); len(got) != 0 {
			t.Fatalf("expired items repeat: %+v", got)
		}
	})
}

func TestSessionExpiry(t *testing.T) {
	eachStore(t, envSetup{}, func(t *testing.T, e *env) {
		token, _ := e.pair("Box", "cli")
		mustStatus(t, e.do("GET", "/api/outside-agents/v1/session/status", token, ""), 200)
		e.Clock.Advance(8*time.Hour + time.Second)
		mustCode(t, e.do("GET", "/api/outside-agents/v1/session/status", token, ""), 401, "invalid_session")
		// Codes expire after five minutes.
		r := e.do("POST", "/owner/outside-agents/pairings", ownerToken, `{"name":"A","kind":"cli"}`)
		code := r.JSON(t)["code"].(string)
		e.Clock.Advance(5*time.Minute + time.Second)
		mustCode(t, e.do("POST", "/api/outside-agents/v1/pairings/exchange", "", `{"code":"`+code+`","card":{"name":"A","kind":"cli"}}`), 401, "invalid_code")
	})
}

func TestRateLimits(t *testing.T) {
	eachStore(t, envSetup{}, func(t *testing.T, e *env) {
		// The buckets are per clock minute and the test clock runs: start
		// just after a minute begins, so no bucket rolls over mid-test.
		e.Clock.Advance(time.Minute - time.Duration(e.Clock.Now().UnixMilli()%60_000)*time.Millisecond + 100*time.Millisecond)
		token, _ := e.pair("Box", "cli")
		for i := 0; i < 30; i++ {
			mustStatus(t, e.do("GET", "/api/outside-agents/v1/session/status", token, ""), 200)
		}
		r := e.do("GET", "/api/outside-agents/v1/session/status", token, "")
		mustCode(t, r, 429, "rate_limited")
		if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
		// Inbox and replies share 60 a minute.
		for i := 0; i < 59; i++ {
			mustStatus(t, e.do("GET", "/api/outside-agents/v1/inbox?wait=0", token, ""), 200)
		}
		mustStatus(t, e.do("POST", "/api/outside-agents/v1/replies", token, `{"relay_id":"x","text":"y"}`), 404)
		mustCode(t, e.do("GET", "/api/outside-agents/v1/inbox", token, ""), 429, "rate_limited")
		// Exchange: 20 a minute per client.
		for i := 0; i < 19; i++ { // pair() used one
			mustCode(t, e.do("POST", "/api/outside-agents/v1/pairings/exchange", "", `{"code":"NOPE","card":{"name":"A","kind":"cli"}}`), 401, "invalid_code")
		}
		mustCode(t, e.do("POST", "/api/outside-agents/v1/pairings/exchange", "", `{"code":"NOPE","card":{"name":"A","kind":"cli"}}`), 429, "rate_limited")
		e.Clock.Advance(time.Minute)
		mustStatus(t, e.do("GET", "/api/outside-agents/v1/session/status", token, ""), 200)
	})
}

func TestNoticesAndStage(t *testing.T) {
	eachStore(t, envSetup{}, func(t *testing.T, e *env) {
		token, pid := e.pair("Box", "cli")
		stream := e.followFeed(t)
		post := func(body string) reply { return e.do("POST", "/api/outside-agents/v1/notices", token, body) }
		for _, bad := range []string{
			`{"text":"<b>bold</b>"}`, `{"text":"` + strings.Repeat("a", 601) + `"}`, `{"text":" "}`,
			`{"item":{"type":"dance"}}`, `{"item":{"type":"say","text":"hi","loud":true}}`,
			`{"item":{"type":"say","text":"see https://evil.example"}}`, `{"item":{"type":"say","text":"<script>x</script>"}}`,
			`{"item":{"type":"card","title":"t","link":"https://evil.example/"}}`, `{"item":{"type":"card","title":"t","link":"//evil.example/"}}`,
			`{"item":{"type":"progress","step":4,"total":3}}`, `{"item":{"type":"gesture","name":"moonwalk"}}`,
			`{"item":{"type":"say","text":"` + strings.Repeat("a", 281) + `"}}`, `{"text":"a","item":{"type":"say","text":"b"}}`,
		} {
			r := post(bad)
			mustStatus(t, r, 422)
		}
		mustStatus(t, post(`not json`), 400)
		for i := 0; i < 3; i++ {
			r := post(`{"text":"The tests passed."}`)
			mustStatus(t, r, 202)
			if r.JSON(t)["accepted"] != true {
				t.Fatalf("notice %s", r.Body)
			}
		}
		r := post(`{"text":"one more"}`)
		mustCode(t, r, 429, "notice_limit")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
		mustStatus(t, post(`{"item":{"type":"say","text":"Two pages done."}}`), 202)
		mustCode(t, post(`{"item":{"type":"say","text":"Three pages done."}}`), 429, "stage_limit")
		for _, ok := range []string{
			`{"item":{"type":"progress","step":2,"total":3,"label":"Pages done"}}`,
			`{"item":{"type":"card","title":"Preview ready","lines":["Three pages built","Checks passed"],"link":"/dashboard/agents/21"}}`,
			`{"item":{"type":"gesture","name":"wave"}}`,
			`{"item":{"type":"ask","text":"Which page should I work on next?"}}`,
		} {
			mustStatus(t, post(ok), 202)
		}
		for i := 0; i < 7; i++ { // 12 a minute: 5 taken above, with the refused say
			post(`{"item":{"type":"gesture","name":"nod"}}`)
		}
		mustCode(t, post(`{"item":{"type":"gesture","name":"nod"}}`), 429, "stage_limit")

		r = e.do("GET", "/owner/outside-agents/feed?limit=5", ownerToken, "")
		mustStatus(t, r, 200)
		var feed struct{ Items []map[string]any }
		_ = json.Unmarshal(r.Body, &feed)
		if len(feed.Items) != 5 || feed.Items[0]["participant_id"] != pid {
			t.Fatalf("feed %s", r.Body)
		}
		mustCode(t, e.do("GET", "/owner/outside-agents/feed", visitorToken, ""), 404, "not_found")
		got := stream.collect(t, 3)
		if got[0].Event != "notice" || got[0].Data["text"] != "The tests passed." || got[0].ID == "" {
			t.Fatalf("stream %+v", got)
		}
	})
}

func TestAnonymousOwnerWithoutAuth(t *testing.T) {
	eachStore(t, envSetup{noAuth: true}, func(t *testing.T, e *env) {
		mustStatus(t, e.do("POST", "/owner/outside-agents/pairings", "", `{"name":"Box","kind":"cli"}`), 201)
	})
}

func TestTwoReplicas(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			// Two replicas share the state: the one in-process store, or
			// Redis through a store (a connection) each.
			replicas := newReplicas(t, c.URL, 2, envSetup{})
			a, b := replicas[0], replicas[1]
			token, _ := a.pair("Box", "cli")
			done := a.turn(ownerToken, "across replicas?")
			b.answer(token, "across replicas?", "yes")
			if got := outputText(t, wait(t, done)); got != "yes" {
				t.Fatalf("answer %q", got)
			}
		})
	}
}

// A question the outside agent cannot take is the caller's bad input: 400,
// not a 503 that invites a retry.
func TestInvalidQuestion(t *testing.T) {
	eachStore(t, envSetup{}, func(t *testing.T, e *env) {
		token, _ := e.pair("Box", "cli")
		r := wait(t, e.turn(ownerToken, strings.Repeat("a", relay.MaxQuestionChars+1)))
		mustCode(t, r, 400, agent.CodeQuestion)
		if ra := r.Header.Get("Retry-After"); ra != "" {
			t.Fatalf("bad input says Retry-After %q", ra)
		}
		receipt, events := e.receiptAndEvents(ownerToken, r)
		checkFailure(t, receipt, events, agent.ActivityRefused, agent.CodeQuestion)
		if got := e.inbox(token, 0); len(got) != 0 {
			t.Fatalf("the question reached the participant: %+v", got)
		}
	})
}

func TestVisitorsOptIn(t *testing.T) {
	eachStore(t, envSetup{backend: &config.RelayBackend{AllowVisitors: true, VisitorDailyCap: 1}}, func(t *testing.T, e *env) {
		token, _ := e.pair("Box", "cli")
		e.roundTrip(visitorToken, token, "from a visitor", "hello visitor")
		// The daily cap is spent: the next visitor turn fails at once, as
		// rate limited until the next UTC day.
		r := wait(t, e.turn(visitorToken, "again"))
		mustCode(t, r, 429, "relay_visitor_cap")
		if r.Header.Get("Retry-After") == "" {
			t.Fatalf("no Retry-After over the cap: %v", r.Header)
		}
		// The owner is not capped.
		e.roundTrip(ownerToken, token, "owner", "ok")
	})
}
