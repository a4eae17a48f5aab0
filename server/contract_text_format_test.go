package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// /v1/responses: a typed agent's responses say its output format (the
// json_schema of spec.outputSchema) and their output_text is the JSON; a
// request for another format is refused naming text.format, and an
// untyped agent takes only plain text.
func TestOpenResponsesTextFormat(t *testing.T) {
	typed := servertest.Setup{Folder: "../examples/trip", Config: func(c *config.Config) { c.Server.OpenResponses = true }}
	servertest.EachStore(t, typed, func(t *testing.T, ts *servertest.Server) {
		in, _ := json.Marshal(`{"city":"Lisbon","days":2}`)
		r := ts.Post("/v1/responses", `{"model":"trip","input":`+string(in)+`}`)
		servertest.MustStatus(t, r, http.StatusOK)
		var resp struct {
			Text struct {
				Format struct {
					Type, Name string
					Schema     map[string]any
				}
			}
			OutputText string `json:"output_text"`
			Output     []struct {
				Content []struct{ Text string }
			}
		}
		if err := json.Unmarshal(r.Body, &resp); err != nil {
			t.Fatal(err)
		}
		if f := resp.Text.Format; f.Type != "json_schema" || f.Name != "agent_output" || f.Schema["type"] != "object" {
			t.Fatalf("text.format %+v, want the agent's json_schema", f)
		}
		answer := resp.OutputText
		if answer == "" && len(resp.Output) > 0 && len(resp.Output[len(resp.Output)-1].Content) > 0 {
			answer = resp.Output[len(resp.Output)-1].Content[0].Text
		}
		var plan map[string]any
		if err := json.Unmarshal([]byte(answer), &plan); err != nil || plan["city"] != "Lisbon" {
			t.Fatalf("the answer %q is not the typed plan: %v", answer, err)
		}
		for _, text := range []string{`{"format":{"type":"text"}}`, `{"format":{"type":"json_schema","name":"x","schema":{"type":"string"}}}`} {
			r := ts.Post("/v1/responses", `{"model":"trip","input":`+string(in)+`,"text":`+text+`}`)
			if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"param":"text.format"`) {
				t.Fatalf("text %s: %d %s, want 400 naming text.format", text, r.Status, r.Body)
			}
		}
	})
	untyped := servertest.Setup{Config: func(c *config.Config) { c.Server.OpenResponses = true }}
	servertest.EachStore(t, untyped, func(t *testing.T, ts *servertest.Server) {
		servertest.MustStatus(t, ts.Post("/v1/responses", `{"model":"hello","input":"hi","text":{"format":{"type":"text"}}}`), http.StatusOK)
		r := ts.Post("/v1/responses", `{"model":"hello","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":{"type":"object"}}}}`)
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"param":"text.format"`) {
			t.Fatalf("json_schema for an untyped agent: %d %s", r.Status, r.Body)
		}
	})
}
