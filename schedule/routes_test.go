package schedule_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/schedule"
	"github.com/harnest/harnest/server/servertest"
)

// withUsers serves alice (the owner) and bob, with quiet schedulers.
func withUsers(max int) servertest.Setup {
	return servertest.Setup{
		Config: func(c *config.Config) {
			c.Auth.Tokens = []config.Token{
				{Token: "alice-token-0123456789", User: "alice", Owner: true},
				{Token: "bob-token-0123456789ab", User: "bob"},
			}
			c.Server.Schedules.MaxPerUser = max
		},
		Schedules: func(o *schedule.Options) { o.Tick = time.Hour },
	}
}

func decode[T any](t *testing.T, r servertest.Reply) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body %s: %v", r.Body, err)
	}
	return v
}

func TestBadInputIsRefusedNamingTheFieldAndStoresNothing(t *testing.T) {
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	cases := []struct{ body, field string }{
		{`{"cron":"61 * * * *","input":"hi"}`, "cron"},
		{`{"cron":"every day","input":"hi"}`, "cron"},
		{`{"cron":"CRON_TZ=Europe/Berlin 0 9 * * *","input":"hi"}`, "cron"},
		{`{"cron":"0 9 * * *","timeZone":"Mars/Olympus","input":"hi"}`, "timeZone"},
		{`{"cron":"0 9 * * *","timeZone":"Local","input":"hi"}`, "timeZone"},
		{`{"input":"hi"}`, "cron"},
		{`{"cron":"0 9 * * *","at":"` + future + `","input":"hi"}`, "at"},
		{`{"at":"2020-01-01T00:00:00Z","input":"hi"}`, "at"},
		{`{"at":"tomorrow","input":"hi"}`, "at"},
		{`{"at":"` + future + `","timeZone":"UTC","input":"hi"}`, "timeZone"},
		{`{"cron":"0 9 * * *","input":"  "}`, "input"},
		{`{"cron":"0 9 * * *","input":7}`, "input"},
		{`{"cron":"0 9 * * *","input":["hi"]}`, "input"},
		{`{"cron":"0 9 * * *","input":{"city":"Rome"}}`, "input"}, // an object, for an agent with no input schema
		{`{"cron":"0 9 * * *","input":"hi","onBusy":"later"}`, "onBusy"},
		{`{"cron":"0 9 * * *","input":"hi","sessionId":"sess_nope"}`, "sessionId"},
		{`{"cron":"0 9 * * *","input":"hi","webhook":{"url":""}}`, "webhook.url"},
		{`{"cron":"0 9 * * *","input":"hi","webhook":{"url":"http://10.0.0.1/x"}}`, "webhook.url"},
		{`{"cron":"0 9 * * *","input":"hi","colour":"red"}`, "colour"},
		{`{"cron":"0 9 * * *","input":"hi","paused":"yes"}`, "paused"},
		{`[1]`, "body"},
	}
	servertest.EachStore(t, withUsers(10), func(t *testing.T, ts *servertest.Server) {
		bob := ts.As("bob-token-0123456789ab")
		for _, c := range cases {
			r := bob.Post("/schedules", c.body)
			servertest.MustStatus(t, r, http.StatusBadRequest)
			if got := r.JSON(t)["detail"].(string); !strings.HasPrefix(got, c.field+" ") {
				t.Errorf("%s: detail %q does not name %s", c.body, got, c.field)
			}
		}
		list := decode[struct{ Schedules []schedule.View }](t, bob.Get("/schedules"))
		if len(list.Schedules) != 0 {
			t.Fatalf("refused schedules were stored: %+v", list.Schedules)
		}
		// A refused patch changes nothing either.
		created := decode[schedule.View](t, bob.Post("/schedules", `{"cron":"0 9 * * *","timeZone":"Europe/Berlin","input":"hi"}`))
		r := bob.Do("PATCH", "/schedules/"+created.ID, "application/json", []byte(`{"cron":"0 25 * * *","input":"changed"}`))
		servertest.MustStatus(t, r, http.StatusBadRequest)
		got := decode[schedule.View](t, bob.Get("/schedules/"+created.ID))
		if got.Cron != "0 9 * * *" || string(got.Input) != `"hi"` || !got.NextFireAt.Equal(*created.NextFireAt) {
			t.Fatalf("a refused patch changed the schedule: %+v", got)
		}
	})
}

func TestSchedulesPerUserAreBounded(t *testing.T) {
	servertest.EachStore(t, withUsers(2), func(t *testing.T, ts *servertest.Server) {
		bob := ts.As("bob-token-0123456789ab")
		for range 2 {
			servertest.MustStatus(t, bob.Post("/schedules", `{"cron":"@hourly","input":"hi"}`), http.StatusCreated)
		}
		r := bob.Post("/schedules", `{"cron":"@hourly","input":"hi"}`)
		servertest.MustStatus(t, r, http.StatusTooManyRequests)
		if d := r.JSON(t)["detail"].(string); !strings.Contains(d, "schedules.maxPerUser") {
			t.Fatalf("detail %q does not name the bound", d)
		}
		servertest.MustStatus(t, ts.As("alice-token-0123456789").Post("/schedules", `{"cron":"@hourly","input":"hi"}`), http.StatusCreated)
	})
}

func TestSchedulesAreTheirUsersAndTheOwnersForAnyone(t *testing.T) {
	servertest.EachStore(t, withUsers(10), func(t *testing.T, ts *servertest.Server) {
		alice, bob := ts.As("alice-token-0123456789"), ts.As("bob-token-0123456789ab")
		var ids []string
		for i := range 3 {
			r := bob.Post("/schedules", fmt.Sprintf(`{"cron":"30 8 * * 1-5","timeZone":"America/New_York","input":"report %d"}`, i))
			servertest.MustStatus(t, r, http.StatusCreated)
			v := decode[schedule.View](t, r)
			if v.UserID != "bob" || v.SessionID != nil || v.NextFireAt == nil || v.NextFireAt.In(mustZone(t, "America/New_York")).Hour() != 8 {
				t.Fatalf("created %+v", v)
			}
			ids = append(ids, v.ID)
		}
		page := decode[struct {
			Schedules  []schedule.View
			NextCursor *string
		}](t, bob.Get("/schedules?limit=2"))
		if len(page.Schedules) != 2 || page.NextCursor == nil {
			t.Fatalf("first page %+v", page)
		}
		rest := decode[struct {
			Schedules  []schedule.View
			NextCursor *string
		}](t, bob.Get("/schedules?limit=2&cursor="+*page.NextCursor))
		if len(rest.Schedules) != 1 || rest.NextCursor != nil {
			t.Fatalf("second page %+v", rest)
		}
		id := ids[0]
		servertest.MustStatus(t, alice.Get("/schedules/"+id), http.StatusNotFound)
		servertest.MustStatus(t, bob.Get("/schedules/"+id+"?user=alice"), http.StatusNotFound)
		servertest.MustStatus(t, alice.Get("/schedules/"+id+"?user=bob"), http.StatusOK)
		paused := decode[schedule.View](t, alice.Post("/schedules/"+id+"/pause?user=bob", ""))
		if !paused.Paused {
			t.Fatalf("pause: %+v", paused)
		}
		resumed := decode[schedule.View](t, bob.Post("/schedules/"+id+"/resume", ""))
		if resumed.Paused || resumed.NextFireAt == nil {
			t.Fatalf("resume: %+v", resumed)
		}
		patched := decode[schedule.View](t, bob.Do("PATCH", "/schedules/"+id, "application/json", []byte(`{"input":"new text","onBusy":"enqueue"}`)))
		if string(patched.Input) != `"new text"` || patched.OnBusy != "enqueue" || patched.Cron != "30 8 * * 1-5" {
			t.Fatalf("patch: %+v", patched)
		}
		servertest.MustStatus(t, alice.Do("DELETE", "/schedules/"+id, "", nil), http.StatusNotFound)
		servertest.MustStatus(t, bob.Do("DELETE", "/schedules/"+id, "", nil), http.StatusNoContent)
		servertest.MustStatus(t, bob.Get("/schedules/"+id), http.StatusNotFound)
	})
}

func mustZone(t *testing.T, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
