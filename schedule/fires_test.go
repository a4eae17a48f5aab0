package schedule_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/outbox"
	"github.com/harnest/harnest/schedule"
	"github.com/harnest/harnest/server/servertest"
)

// Run-now fires a paused schedule once, at once, and keeps its next time;
// the fire's response completes in a session of its own, its receipt
// reaches the schedule's webhook, and the fire the owner's feed.
func TestRunNowFiresOnceAndTheWebhookGetsTheReceipt(t *testing.T) {
	rc := testutil.NewReceiver(t)
	setup := servertest.Setup{
		Config: func(c *config.Config) { c.Server.Outbound.AllowHosts = []string{rc.Host()} },
		Outbox: func(o *outbox.DispatcherOptions) {
			o.Poll, o.Lease, o.Timeout = 20*time.Millisecond, time.Second, 10*time.Second
		},
		Schedules: func(o *schedule.Options) { o.Tick = 20 * time.Millisecond },
	}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		r := ts.Post("/schedules", `{"cron":"0 9 * * *","input":"good morning","paused":true,"webhook":{"url":"`+rc.URL("/hook")+`"}}`)
		servertest.MustStatus(t, r, http.StatusCreated)
		created := decode[schedule.View](t, r)
		r = ts.Post("/schedules/"+created.ID+"/run", "")
		servertest.MustStatus(t, r, http.StatusAccepted)
		fire := decode[schedule.FireView](t, r)
		if fire.Seq != 1 || !fire.Manual || fire.Status != "started" || fire.ResponseID == "" {
			t.Fatalf("run-now: %+v", fire)
		}
		rc.Wait(t, "the fire's receipt", testutil.DeliveredWith(fire.ResponseID, `"completed"`, "Echo: good morning"))
		got := decode[schedule.View](t, ts.Get("/schedules/"+created.ID))
		if !got.Paused || got.Fires != 1 || !got.NextFireAt.Equal(*created.NextFireAt) {
			t.Fatalf("after run-now: %+v", got)
		}
		if fs := fires(t, ts, created.ID); len(fs) != 1 {
			t.Fatalf("fires %+v", fs)
		}
		// The owner's feed (without auth the local user is the owner) names
		// the fire and its response, not its text.
		feed := ts.Get("/owner/outside-agents/feed")
		servertest.MustStatus(t, feed, http.StatusOK)
		if body := string(feed.Body); !strings.Contains(body, `schedule_fire`) || !strings.Contains(body, fire.ResponseID) ||
			!strings.Contains(body, created.ID) || strings.Contains(body, "good morning") {
			t.Fatalf("owner's feed: %s", body)
		}
		// Once the response is over, the feed gets its outcome too.
		waitFor(t, "the fire's outcome in the owner's feed", func() bool {
			return strings.Contains(string(ts.Get("/owner/outside-agents/feed").Body), `"outcome":"completed"`)
		})
		servertest.MustStatus(t, ts.Post("/schedules/sch_nope/run", ""), http.StatusNotFound)
	})
}

// A fire whose fixed session is busy follows the busy strategy: rejected,
// it is recorded failed with the reason; enqueued, it runs after the turn
// that held the session.
func TestAFireOnABusySessionFollowsTheBusyStrategy(t *testing.T) {
	setup := servertest.Setup{
		Config:    func(c *config.Config) { c.Spec.Backend.Echo = &config.EchoBackend{DelayMs: 100} },
		Schedules: func(o *schedule.Options) { o.Tick = time.Hour },
	}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		sid := newSession(t, ts)
		busy := func() {
			r := ts.Post("/responses", `{"input":"a long answer of many words","background":true,"sessionId":"`+sid+`"}`)
			servertest.MustStatus(t, r, http.StatusOK)
		}
		for _, c := range []struct{ onBusy, status, errPart string }{
			{"reject", "failed", "session_busy"},
			{"enqueue", "started", ""},
		} {
			r := ts.Post("/schedules", `{"cron":"@yearly","input":"scheduled","sessionId":"`+sid+`","onBusy":"`+c.onBusy+`"}`)
			servertest.MustStatus(t, r, http.StatusCreated)
			id := decode[schedule.View](t, r).ID
			busy()
			r = ts.Post("/schedules/"+id+"/run", "")
			servertest.MustStatus(t, r, http.StatusAccepted)
			fire := decode[schedule.FireView](t, r)
			if fire.Status != c.status || !strings.Contains(fire.Error, c.errPart) || fire.SessionID != sid {
				t.Fatalf("onBusy %s: fire %+v", c.onBusy, fire)
			}
			if c.onBusy == "enqueue" {
				deadline := time.Now().Add(10 * time.Second)
				for ts.Get("/responses/" + fire.ResponseID + "?sessionId=" + sid).JSON(t)["status"] != "completed" {
					if time.Now().After(deadline) {
						t.Fatal("the enqueued fire did not complete")
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			waitIdle(t, ts, sid)
		}
	})
}

func waitIdle(t *testing.T, ts *servertest.Server, sid string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		page := ts.Get("/sessions/" + sid + "/responses").JSON(t)
		idle := true
		for _, it := range page["responses"].([]any) {
			if s := it.(map[string]any)["status"]; s == "in_progress" || s == "queued" {
				idle = false
			}
		}
		if idle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session still busy: %v", page)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
