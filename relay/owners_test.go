package relay_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/store/stores"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/relay/agent"
)

// participantIDs lists the participant IDs the owner of ownerTok sees.
func (e *env) participantIDs(ownerTok string) []string {
	e.T.Helper()
	r := e.do("GET", "/owner/outside-agents/participants", ownerTok, "")
	mustStatus(e.T, r, 200)
	var v struct {
		Participants []struct {
			ID string `json:"participant_id"`
		}
	}
	if err := json.Unmarshal(r.Body, &v); err != nil || v.Participants == nil {
		e.T.Fatalf("participants body: %v: %s", err, r.Body)
	}
	ids := make([]string, len(v.Participants))
	for i, p := range v.Participants {
		ids[i] = p.ID
	}
	return ids
}

// feedIDs lists the participant IDs of the feed entries the owner of
// ownerTok sees.
func (e *env) feedIDs(ownerTok string) []string {
	e.T.Helper()
	r := e.do("GET", "/owner/outside-agents/feed?limit=100", ownerTok, "")
	mustStatus(e.T, r, 200)
	var v struct {
		Items []struct {
			ParticipantID string `json:"participant_id"`
		}
	}
	if err := json.Unmarshal(r.Body, &v); err != nil || v.Items == nil {
		e.T.Fatalf("feed body: %v: %s", err, r.Body)
	}
	ids := make([]string, len(v.Items))
	for i, it := range v.Items {
		ids[i] = it.ParticipantID
	}
	return ids
}

func TestOwnersHaveSeparateRelays(t *testing.T) {
	eachStore(t, envSetup{}, func(t *testing.T, e *env) {
		tokA, pidA := e.pairAs(ownerToken, "Box A", "cli")

		// Owner B sees nothing of A's and cannot manage A's participant:
		// 404, as for an unknown ID.
		if ids := e.participantIDs(ownerBToken); len(ids) != 0 {
			t.Fatalf("owner B lists %v", ids)
		}
		for _, path := range []string{"/pause", "/resume", "/disconnect"} {
			mustCode(t, e.do("POST", "/owner/outside-agents/participants/"+pidA+path, ownerBToken, ""), 404, "participant_not_found")
		}
		mustCode(t, e.do("DELETE", "/owner/outside-agents/participants/"+pidA, ownerBToken, ""), 404, "participant_not_found")
		st := e.do("GET", "/api/outside-agents/v1/session/status", tokA, "")
		mustStatus(t, st, 200)
		if st.JSON(t)["state"] != "active" {
			t.Fatalf("A's participant after B's attempts: %s", st.Body)
		}
		if ids := e.participantIDs(ownerToken); len(ids) != 1 || ids[0] != pidA {
			t.Fatalf("owner A lists %v, want [%s]", ids, pidA)
		}

		// B's turn finds no participant of B's, although A has one; A's
		// inbox stays empty.
		mustCode(t, wait(t, e.turn(ownerBToken, "for B")), 503, "relay_no_participant")
		if got := e.inbox(tokA, 0); len(got) != 0 {
			t.Fatalf("B's turn reached A's participant: %+v", got)
		}

		// Each owner's turns reach that owner's participant only.
		tokB, pidB := e.pairAs(ownerBToken, "Box B", "cli")
		if ids := e.participantIDs(ownerBToken); len(ids) != 1 || ids[0] != pidB {
			t.Fatalf("owner B lists %v, want [%s]", ids, pidB)
		}
		if ids := e.participantIDs(ownerToken); len(ids) != 1 || ids[0] != pidA {
			t.Fatalf("owner A lists %v after B paired, want [%s]", ids, pidA)
		}
		e.roundTrip(ownerToken, tokA, "from A", "answer of A")
		doneB := e.turn(ownerBToken, "from B")
		itemsB := e.inbox(tokB, 10)
		if len(itemsB) != 1 || itemsB[0].Text != "from B" {
			t.Fatalf("B's inbox %+v", itemsB)
		}
		if got := e.inbox(tokA, 0); len(got) != 0 {
			t.Fatalf("B's turn reached A's participant: %+v", got)
		}
		// A's session token cannot answer B's item.
		mustCode(t, e.do("POST", "/api/outside-agents/v1/replies", tokA, `{"relay_id":"`+itemsB[0].RelayID+`","text":"not yours"}`), 404, "item_not_found")
		mustStatus(t, e.do("POST", "/api/outside-agents/v1/replies", tokB, `{"relay_id":"`+itemsB[0].RelayID+`","text":"answer of B"}`), 200)
		if got := outputText(t, wait(t, doneB)); got != "answer of B" {
			t.Fatalf("B's answer %q", got)
		}

		// Notices and stage items reach their participant's owner only,
		// in the feed and in the live stream.
		streamB := e.followFeedAs(t, ownerBToken)
		mustStatus(t, e.do("POST", "/api/outside-agents/v1/notices", tokA, `{"text":"A is done."}`), 202)
		mustStatus(t, e.do("POST", "/api/outside-agents/v1/notices", tokA, `{"item":{"type":"gesture","name":"wave"}}`), 202)
		mustStatus(t, e.do("POST", "/api/outside-agents/v1/notices", tokB, `{"text":"B is done."}`), 202)
		if ids := e.feedIDs(ownerBToken); len(ids) != 1 || ids[0] != pidB {
			t.Fatalf("B's feed has %v, want [%s]", ids, pidB)
		}
		if ids := e.feedIDs(ownerToken); len(ids) != 2 || ids[0] != pidA || ids[1] != pidA {
			t.Fatalf("A's feed has %v, want A's two entries", ids)
		}
		// B's stream opened before A's notices; its first frame is B's.
		if got := streamB.collect(t, 1); got[0].Data["text"] != "B is done." {
			t.Fatalf("B's stream: %+v", got)
		}

		// A's rate buckets are A's participant's: spending B's notices
		// leaves A's count where it was.
		for i := 0; i < 2; i++ {
			mustStatus(t, e.do("POST", "/api/outside-agents/v1/notices", tokB, `{"text":"B again."}`), 202)
		}
		mustCode(t, e.do("POST", "/api/outside-agents/v1/notices", tokB, `{"text":"B over."}`), 429, "notice_limit")
		mustStatus(t, e.do("POST", "/api/outside-agents/v1/notices", tokA, `{"text":"A again."}`), 202)

		// B manages its own participant; A cannot, and A's is untouched.
		mustCode(t, e.do("POST", "/owner/outside-agents/participants/"+pidB+"/pause", ownerToken, ""), 404, "participant_not_found")
		mustStatus(t, e.do("POST", "/owner/outside-agents/participants/"+pidB+"/pause", ownerBToken, ""), 200)
		mustStatus(t, e.do("POST", "/owner/outside-agents/participants/"+pidB+"/disconnect", ownerBToken, ""), 204)
		mustCode(t, e.do("GET", "/api/outside-agents/v1/session/status", tokB, ""), 401, "invalid_session")
		mustStatus(t, e.do("GET", "/api/outside-agents/v1/session/status", tokA, ""), 200)
		mustCode(t, wait(t, e.turn(ownerBToken, "B again?")), 503, "relay_no_participant")
	})
}

func TestVisitorsGoToTheFirstOwner(t *testing.T) {
	eachStore(t, envSetup{backend: &config.RelayBackend{AllowVisitors: true}}, func(t *testing.T, e *env) {
		// Only the second owner has a participant: visitors find none.
		tokB, _ := e.pairAs(ownerBToken, "Box B", "cli")
		mustCode(t, wait(t, e.turn(visitorToken, "anyone?")), 503, "relay_no_participant")
		if got := e.inbox(tokB, 0); len(got) != 0 {
			t.Fatalf("a visitor's turn reached the second owner's participant: %+v", got)
		}
		// The first owner (the first auth.tokens entry with owner: true)
		// answers visitors.
		tokA, _ := e.pairAs(ownerToken, "Box A", "cli")
		e.roundTrip(visitorToken, tokA, "hello?", "hello visitor")
		if got := e.inbox(tokB, 0); len(got) != 0 {
			t.Fatalf("a visitor's turn reached the second owner's participant: %+v", got)
		}
	})
}

// receiptAndEvents reads the receipt and the event stream of a finished
// turn as the caller (token) sees them.
func (e *env) receiptAndEvents(token string, r reply) (map[string]any, string) {
	e.T.Helper()
	id, session := r.Header.Get("Harnest-Response-Id"), r.Header.Get("Harnest-Session-Id")
	if id == "" || session == "" {
		e.T.Fatalf("the turn names no response or session: %v", r.Header)
	}
	rec := e.do("GET", "/responses/"+id+"?sessionId="+session, token, "")
	mustStatus(e.T, rec, 200)
	ev := e.do("GET", "/responses/"+id+"/events?sessionId="+session, token, "")
	mustStatus(e.T, ev, 200)
	return rec.JSON(e.T), string(ev.Body)
}

// checkFailure checks a failed turn's receipt (status failed, the code)
// and its agent_activity event (the activity, the code).
func checkFailure(t *testing.T, receipt map[string]any, events, activity, code string) {
	t.Helper()
	errObj, _ := receipt["error"].(map[string]any)
	if receipt["status"] != "failed" || errObj == nil || errObj["code"] != code {
		t.Fatalf("receipt %v, want failed with code %s", receipt, code)
	}
	want := `"activity":"` + activity + `"`
	if !strings.Contains(events, "response.agent_activity") || !strings.Contains(events, want) ||
		!strings.Contains(events, `"code":"`+code+`"`) {
		t.Fatalf("events lack the agent_activity %s with code %s:\n%s", activity, code, events)
	}
}

func TestRefusalsThroughResponses(t *testing.T) {
	t.Run("owner only", func(t *testing.T) {
		eachStore(t, envSetup{}, func(t *testing.T, e *env) {
			e.pair("Box", "cli")
			r := wait(t, e.turn(visitorToken, "may I?"))
			mustCode(t, r, 404, "relay_owner_only")
			if ra := r.Header.Get("Retry-After"); ra != "" {
				t.Fatalf("a refusal says Retry-After %q", ra)
			}
			receipt, events := e.receiptAndEvents(visitorToken, r)
			checkFailure(t, receipt, events, agent.ActivityRefused, agent.CodeOwnerOnly)
		})
	})
	t.Run("visitor cap", func(t *testing.T) {
		eachStore(t, envSetup{backend: &config.RelayBackend{AllowVisitors: true, VisitorDailyCap: 1}}, func(t *testing.T, e *env) {
			// The relay's clock stands at noon UTC, far from midnight.
			now := time.Now().UTC()
			noon := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC)
			if !noon.After(now) {
				noon = noon.Add(24 * time.Hour)
			}
			e.Clock.Advance(noon.Sub(now))
			token, _ := e.pair("Box", "cli")
			e.roundTrip(visitorToken, token, "first", "welcome")
			r := wait(t, e.turn(visitorToken, "second"))
			mustCode(t, r, 429, "relay_visitor_cap")
			// Retry-After is the time until the next UTC day: twelve hours
			// less the seconds the test took.
			ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
			if err != nil || ra > 12*3600 || ra < 12*3600-60 {
				t.Fatalf("Retry-After %q, want about twelve hours in seconds", r.Header.Get("Retry-After"))
			}
			receipt, events := e.receiptAndEvents(visitorToken, r)
			checkFailure(t, receipt, events, agent.ActivityRateLimited, agent.CodeVisitorCap)
			// The next UTC day opens the cap again (the session has ended
			// by then: pair again).
			e.Clock.Advance(12 * time.Hour)
			token, _ = e.pair("Box", "cli")
			e.roundTrip(visitorToken, token, "next day", "again")
		})
	})
	t.Run("no participant", func(t *testing.T) {
		eachStore(t, envSetup{}, func(t *testing.T, e *env) {
			r := wait(t, e.turn(ownerToken, "anyone?"))
			mustCode(t, r, 503, agent.CodeNoParticipant)
			receipt, events := e.receiptAndEvents(ownerToken, r)
			checkFailure(t, receipt, events, agent.ActivityFailed, agent.CodeNoParticipant)
		})
	})
}

func TestFirstOwnerMustBeAnOwner(t *testing.T) {
	st, err := stores.Open(context.Background(), stores.Options{KeyPrefix: "relay-first-owner:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	_, err = relay.New(relay.Options{Store: st,
		Owners: map[string]bool{"alice": true}, FirstOwner: "bob"})
	if err == nil || !strings.Contains(err.Error(), `"bob"`) {
		t.Fatalf("New with a first owner who is not an owner: %v", err)
	}
}
