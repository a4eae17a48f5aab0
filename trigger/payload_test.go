package trigger_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// TestPayloadsThatDoNotMap: a signed payload the templates cannot map is
// refused with 400 naming what is missing, changes nothing, and leaves
// its delivery ID free.
func TestPayloadsThatDoNotMap(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: triggers}, func(t *testing.T, ts *servertest.Server) {
		before := snapshot(t, ts)
		for _, c := range []struct{ body, want string }{
			{`not json`, "not JSON"},
			{`{"ticket":"1"}`, "no value at /text"},
			{`{"text":"hi"}`, "no value at /ticket"},
			{`{"text":"   ","ticket":"1"}`, "blank"},
			{`{"text":"hi","ticket":"1"} {}`, "more than one JSON value"},
			{`{"approvalId":7,"approved":true}`, "not a non-empty string"},
			{`{"approvalId":"approval_x","approved":"maybe"}`, "is not true, false"},
		} {
			r := sendStandard(t, ts, "msg_payload", c.body)
			servertest.MustStatus(t, r, 400)
			if got := r.JSON(t)["detail"].(string); !strings.Contains(got, c.want) {
				t.Fatalf("%s: detail %q, want %q", c.body, got, c.want)
			}
		}
		if after := snapshot(t, ts); after != before {
			t.Fatalf("refused payloads changed alice's sessions:\n%s\n%s", before, after)
		}
		accepted(t, sendStandard(t, ts, "msg_payload", `{"text":"hi","ticket":"1"}`), "started")
	})
}

// TestOneDeliveryAcrossReplicas: the same delivery sent to two replicas
// of one store at once is accepted by exactly one; the other refuses it
// as a replay.
func TestOneDeliveryAcrossReplicas(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, servertest.Setup{Config: triggers}, func(t *testing.T, replicas []*servertest.Server) {
		for round := range 5 {
			id := "msg_race_" + string(rune('a'+round))
			statuses := make([]int, 4)
			var wg sync.WaitGroup
			for i := range statuses {
				wg.Add(1)
				go func() {
					defer wg.Done()
					statuses[i] = sendStandard(t, replicas[i%2], id, `{"text":"race","ticket":"`+id+`"}`).Status
				}()
			}
			wg.Wait()
			won, replayed := 0, 0
			for _, s := range statuses {
				switch s {
				case 202:
					won++
				case 409:
					replayed++
				}
			}
			if won != 1 || replayed != 3 {
				t.Fatalf("round %d: statuses %v, want one 202 and three 409", round, statuses)
			}
		}
	})
}

// TestDeliveriesNeedNoBearerToken: with auth on, a delivery is
// authenticated by its signature alone; the rest of the API still asks
// for a token.
func TestDeliveriesNeedNoBearerToken(t *testing.T) {
	withAuth := func(c *config.Config) {
		triggers(c)
		c.Auth.Tokens = []config.Token{{Token: "alice-token-0123456789", User: "alice"}}
	}
	ts := servertest.Start(t, "", servertest.Setup{Config: withAuth})
	servertest.MustStatus(t, ts.Get("/sessions"), 401)
	rid, sid := accepted(t, sendStandard(t, ts, "msg_auth", `{"text":"hi","ticket":"auth"}`), "started")
	receiptUntil(t, ts, sid, rid, "completed")
	r := ts.As("alice-token-0123456789").Get("/responses/" + rid + "?sessionId=" + sid)
	servertest.MustStatus(t, r, 200)
}
