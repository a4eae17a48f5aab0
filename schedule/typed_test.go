package schedule_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/schedule"
	"github.com/harnest/harnest/server/servertest"
)

const tripSchema = `{"type":"object","required":["city","days"],"additionalProperties":false,
 "properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":7}}}`

// waitFor polls ok every 20 ms for up to 10 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for range 500 {
		if ok() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// An agent with a typed input contract takes a schedule whose input is an
// object that matches its schema; text, and an object that breaks the
// schema, are refused naming input and each violation's pointer, and
// nothing is stored. A fire sends the object as the turn's typed input.
func TestATypedAgentsScheduleSendsItsObject(t *testing.T) {
	setup := servertest.Setup{
		Config:    func(c *config.Config) { c.Spec.InputSchema = config.JSONValue(tripSchema) },
		Schedules: func(o *schedule.Options) { o.Tick = time.Hour },
	}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		refused := []struct{ body, want string }{
			{`{"cron":"@daily","input":"Rome for two days"}`, "input is required as a JSON object"},
			{`{"cron":"@daily","input":{"city":"","days":9,"extra":true}}`, "/days"},
			{`{"cron":"@daily","input":{"city":"Rome"}}`, "days"},
		}
		for _, c := range refused {
			r := ts.Post("/schedules", c.body)
			servertest.MustStatus(t, r, http.StatusBadRequest)
			if detail := r.JSON(t)["detail"].(string); !strings.HasPrefix(detail, "input ") || !strings.Contains(detail, c.want) {
				t.Errorf("%s: detail %q, want input and %q", c.body, detail, c.want)
			}
		}
		if list := decode[struct{ Schedules []schedule.View }](t, ts.Get("/schedules")); len(list.Schedules) != 0 {
			t.Fatalf("refused schedules were stored: %+v", list.Schedules)
		}

		r := ts.Post("/schedules", `{"cron":"@daily","input":{"city":"Rome", "days":2},"paused":true}`)
		servertest.MustStatus(t, r, http.StatusCreated)
		created := decode[schedule.View](t, r)
		if string(created.Input) != `{"city":"Rome","days":2}` {
			t.Fatalf("input shown as %s, want the object", created.Input)
		}
		r = ts.Post("/schedules/"+created.ID+"/run", "")
		servertest.MustStatus(t, r, http.StatusAccepted)
		fire := decode[schedule.FireView](t, r)
		var receipt map[string]any
		waitFor(t, "the fire's receipt", func() bool {
			receipt = ts.Get("/responses/" + fire.ResponseID + "?sessionId=" + fire.SessionID).JSON(t)
			return receipt["status"] == "completed"
		})
		if text, _ := receipt["outputText"].(string); !strings.Contains(text, `"city":"Rome"`) {
			t.Fatalf("the echo agent got %q, want the object", text)
		}
		// Patching the input to text is refused; the object stays.
		p := ts.Do("PATCH", "/schedules/"+created.ID, "application/json", []byte(`{"input":"Paris"}`))
		servertest.MustStatus(t, p, http.StatusBadRequest)
		if got := decode[schedule.View](t, ts.Get("/schedules/"+created.ID)); string(got.Input) != `{"city":"Rome","days":2}` {
			t.Fatalf("a refused patch changed the input: %s", got.Input)
		}
	})
}
