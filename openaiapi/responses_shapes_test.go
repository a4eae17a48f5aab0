package openaiapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// An approval ends the response with an mcp_approval_request item; an
// mcp_approval_response continues it (approve) or ends it incomplete
// (deny).
func TestResponsesApproval(t *testing.T) {
	setup := servertest.Setup{Config: openResponses(echo(func(e *config.EchoBackend) { e.Approval = "deploy" }))}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := responsesClient(ts, "")
		for _, approve := range []bool{true, false} {
			first, err := client.New(testContext(t), ask("ship it"))
			if err != nil {
				t.Fatal(err)
			}
			if first.Status != "completed" || len(first.Output) != 1 || first.Output[0].Type != "mcp_approval_request" ||
				first.Output[0].Name != "deploy" || !strings.Contains(first.Output[0].Arguments.OfString, "ship it") {
				t.Fatalf("first = %s %+v", first.Status, first.Output)
			}
			answer := responses.ResponseInputItemParamOfMcpApprovalResponse(first.Output[0].ID, approve)
			second, err := client.New(testContext(t), responses.ResponseNewParams{Model: "hello", PreviousResponseID: openai.String(first.ID),
				Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{answer}}})
			if err != nil {
				t.Fatal(err)
			}
			if approve && (second.Status != "completed" || second.OutputText() != "Echo: ship it") {
				t.Fatalf("approved = %s %q", second.Status, second.OutputText())
			}
			if !approve && (second.Status != "incomplete" || second.IncompleteDetails.Reason != "approval_denied") {
				t.Fatalf("denied = %s %+v", second.Status, second.IncompleteDetails)
			}
		}
	})
}

// A failing agent: the JSON answer and the stream's last event are
// response.failed with the error's code, as the specification shapes it.
func TestResponsesFailure(t *testing.T) {
	setup := servertest.Setup{Config: openResponses(echo(func(e *config.EchoBackend) { e.Fail = true }))}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		client := responsesClient(ts, "")
		res, err := client.New(testContext(t), ask("boom"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != "failed" || res.Error.Code != runtime.CodeInvocationFailed || res.Error.Message == "" {
			t.Fatalf("failed response = %s %+v", res.Status, res.Error)
		}
		events := streamed(t, client.NewStreaming(testContext(t), ask("boom")))
		last := events[len(events)-1]
		if last.Type != "response.failed" || last.AsResponseFailed().Response.Error.Code != runtime.CodeInvocationFailed {
			t.Fatalf("stream ends with %s", last.RawJSON())
		}
		got, err := client.Get(testContext(t), last.AsResponseFailed().Response.ID, responses.ResponseGetParams{})
		if err != nil || got.Status != "failed" || got.Error.Code != runtime.CodeInvocationFailed {
			t.Fatalf("retrieved = %v %+v", err, got)
		}
	})
}

// usageAgent reports usage twice and answers.
func usageAgent() runtime.Agent {
	return runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		for range 2 {
			if err := emit(runtime.Event{Type: runtime.EventAgentMetadata, Usage: &runtime.Usage{InputTokens: 3, OutputTokens: 5, TotalTokens: 8}}); err != nil {
				return err
			}
		}
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "counted"})
	})
}

// Usage is the exact sum the agent reported; metadata is echoed; a
// conversation (a session) is continued.
func TestResponsesUsageMetadataConversation(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openResponses(), Agent: usageAgent()}, func(t *testing.T, ts *servertest.Server) {
		client := responsesClient(ts, "")
		created := ts.Post("/sessions", `{}`)
		servertest.MustStatus(t, created, http.StatusCreated)
		session := created.JSON(t)["id"].(string)
		params := ask("count")
		params.Metadata = shared.Metadata{"ticket": "T-1"}
		params.Conversation = responses.ResponseNewParamsConversationUnion{OfString: openai.String(session)}
		res, err := client.New(testContext(t), params)
		if err != nil {
			t.Fatal(err)
		}
		if res.Usage.InputTokens != 6 || res.Usage.OutputTokens != 10 || res.Usage.TotalTokens != 16 || res.Metadata["ticket"] != "T-1" {
			t.Fatalf("usage %+v metadata %v", res.Usage, res.Metadata)
		}
		if got := transcript(t, ts, session); len(got) != 2 || got[0] != "user: count" {
			t.Fatalf("transcript of the conversation = %q", got)
		}
		got, err := client.Get(testContext(t), res.ID, responses.ResponseGetParams{})
		if err != nil || got.Usage.TotalTokens != 16 || got.Metadata["ticket"] != "T-1" {
			t.Fatalf("retrieved = %v %+v", err, got)
		}
	})
}

// Bad requests get the specification's error shape and change nothing: no
// session is made.
func TestResponsesRefusals(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Config: openResponses()}, func(t *testing.T, ts *servertest.Server) {
		for _, c := range []struct {
			body   string
			status int
			code   string
		}{
			{`{"model":"hello"}`, 400, "invalid_input"},
			{`{"model":"gpt-4o","input":"hi"}`, 404, "model_not_found"},
			{`{"model":"hello","input":"hi","tools":[{"type":"web_search"}]}`, 400, "unsupported_tool"},
			{`{"model":"hello","input":"hi","background":true,"store":false}`, 400, "invalid_value"},
			{`{"model":"hello","input":[{"role":"user","content":[{"type":"input_image","file_id":"file_1"}]}]}`, 400, "unsupported_content"},
			{`{"model":"hello","input":"hi","conversation":"no-such-session"}`, 404, "session_not_found"},
			{`{"model":"hello","input":[{"type":"function_call_output","call_id":"client_tool_x","output":"1"}]}`, 404, "client_tool_not_found"},
			{`not json`, 400, "invalid_json"},
		} {
			reply := ts.Post("/v1/responses", c.body)
			var body struct {
				Error struct {
					Type, Code, Message string
				}
			}
			if reply.Status != c.status || json.Unmarshal(reply.Body, &body) != nil || body.Error.Code != c.code || body.Error.Message == "" {
				t.Errorf("%s: %d %s, want %d %s", c.body, reply.Status, reply.Body, c.status, c.code)
			}
		}
		if sessions := ts.Get("/sessions").JSON(t)["sessions"].([]any); len(sessions) != 0 {
			t.Fatalf("refused requests made sessions: %v", sessions)
		}
	})
}

// Each door is switched on by its own key.
func TestResponsesDoorSwitches(t *testing.T) {
	chatOnly := servertest.Start(t, "", servertest.Setup{Config: openaiCompat()})
	if r := chatOnly.Post("/v1/responses", `{"model":"hello","input":"hi"}`); r.Status != http.StatusNotFound {
		t.Fatalf("/v1/responses with only openaiCompat: %d %s", r.Status, r.Body)
	}
	responsesOnly := servertest.Start(t, "", servertest.Setup{Config: openResponses()})
	if r := responsesOnly.Post("/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":"hi"}]}`); r.Status != http.StatusNotFound {
		t.Fatalf("/v1/chat/completions with only openResponses: %d %s", r.Status, r.Body)
	}
	if r := responsesOnly.Get("/agent"); !strings.Contains(string(r.Body), `"openResponses":"/v1/responses"`) {
		t.Fatalf("/agent does not list /v1/responses: %s", r.Body)
	}
}
