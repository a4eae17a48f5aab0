package backend_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// Structured output: an agent with spec.outputSchema asks the endpoint for
// response_format json_schema, repairs an answer that does not match, and
// fails with output_invalid when the model never complies.

const forecastSchema = `{"type":"object","required":["city","high"],"additionalProperties":false,
 "properties":{"city":{"type":"string"},"high":{"type":"integer"}}}`

func withOutputSchema(c *config.Config) { c.Spec.OutputSchema = config.JSONValue(forecastSchema) }

func TestModelStructuredOutputRepaired(t *testing.T) {
	eachModelServer(t, withOutputSchema, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.Script(
			fakemodel.Reply{Text: `Sure! {"city": "Oslo"`},                            // not JSON
			fakemodel.Reply{Text: `{"city": "Oslo", "high": "warm"}`},                 // JSON, but /high is a string
			fakemodel.Reply{Text: "```json\n{\"city\": \"Oslo\", \"high\": 21}\n```"}, // matches, in a fence
		)
		r := ts.Post("/responses", `{"input":"Weather in Oslo?"}`)
		servertest.MustStatus(t, r, 200)
		env := r.JSON(t)
		if env["status"] != "completed" || env["outputText"] != `{"city":"Oslo","high":21}` {
			t.Fatalf("envelope %s", r.Body)
		}
		if res, _ := json.Marshal(env["result"]); string(res) != `{"city":"Oslo","high":21}` {
			t.Fatalf("result %s", res)
		}
		reqs := fake.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d model calls, want 3 (two repairs)", len(reqs))
		}
		for i, req := range reqs {
			if !bytes.Contains(req.Body, []byte(`"response_format":{"type":"json_schema","json_schema":{"name":"agent_output","schema":{`)) {
				t.Fatalf("call %d asks for no structured output: %s", i, req.Body)
			}
		}
		last := reqs[2].Messages
		if repair := last[len(last)-1].Text(); !strings.Contains(repair, "at /high: ") {
			t.Fatalf("the repair message does not say what is wrong: %q", repair)
		}
		got := ts.Get("/responses/" + env["id"].(string) + "?sessionId=" + env["sessionId"].(string))
		if !bytes.Equal(got.Body, r.Body) {
			t.Fatalf("receipt %s differs from the reply %s", got.Body, r.Body)
		}
	})
}

func TestModelStructuredOutputNeverComplies(t *testing.T) {
	eachModelServer(t, withOutputSchema, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.SetDefault(func(fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: `{"city": 3}`} })
		r := ts.Post("/responses", `{"input":"Weather?","background":true}`)
		servertest.MustStatus(t, r, 200)
		env := r.JSON(t)
		var receipt map[string]any
		for i := 0; i < 200; i++ {
			receipt = ts.Get("/responses/" + env["id"].(string) + "?sessionId=" + env["sessionId"].(string)).JSON(t)
			if receipt["status"] != "in_progress" {
				break
			}
			sleepBriefly()
		}
		e, _ := receipt["error"].(map[string]any)
		if receipt["status"] != "failed" || e["code"] != "output_invalid" || receipt["result"] != nil {
			t.Fatalf("receipt %v", receipt)
		}
		if n := len(fake.Requests()); n != 3 {
			t.Fatalf("%d model calls, want 3 (the answer and two repairs)", n)
		}
		r = ts.Post("/responses", `{"input":"Weather?"}`)
		if r.Status == 200 || !strings.Contains(string(r.Body), `"code":"output_invalid"`) {
			t.Fatalf("JSON reply %d %s", r.Status, r.Body)
		}
	})
}

// sleepBriefly waits between polls of a receipt.
func sleepBriefly() { time.Sleep(20 * time.Millisecond) }

// An endpoint that rejects response_format: the call is made again
// without it, the answer checked and repaired all the same, and later
// turns no longer ask for it.
func TestModelStructuredOutputWithoutResponseFormat(t *testing.T) {
	eachModelServer(t, withOutputSchema, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		calls := 0
		fake.SetDefault(func(req fakemodel.Request) fakemodel.Reply {
			if bytes.Contains(req.Body, []byte(`"response_format"`)) {
				return fakemodel.Reply{Status: 400, Body: `{"error":{"message":"response_format is not supported"}}`}
			}
			calls++
			if calls%2 == 1 {
				return fakemodel.Reply{Text: `{"city": "Rome"}`} // /high is missing
			}
			return fakemodel.Reply{Text: `{"city": "Rome", "high": 30}`}
		})
		for i := range 2 {
			r := ts.Post("/responses", `{"input":"Weather in Rome?"}`)
			servertest.MustStatus(t, r, 200)
			if res, _ := json.Marshal(r.JSON(t)["result"]); string(res) != `{"city":"Rome","high":30}` {
				t.Fatalf("turn %d: %s", i, r.Body)
			}
		}
		var asked int
		for _, req := range fake.Requests() {
			if bytes.Contains(req.Body, []byte(`"response_format"`)) {
				asked++
			}
		}
		if asked != 1 || len(fake.Requests()) != 5 {
			t.Fatalf("%d calls asked for response_format of %d; want 1 of 5", asked, len(fake.Requests()))
		}
	})
}
