package backend_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/internal/testutil/fakemcp"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// The model backend, tested through a whole server on both stores against
// a fake Chat Completions endpoint written in the tests.

const testKey = "sk-test-secret-key" // testdata/model/config.yaml's apiKey

// eachModelServer runs fn against a server of testdata/model on each store,
// with its own fake endpoint; edit changes the config further.
func eachModelServer(t *testing.T, edit func(*config.Config), fn func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server)) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			fake := fakemodel.Start(t)
			ts := servertest.Start(t, c.URL, servertest.Setup{Folder: "testdata/model", Config: func(cfg *config.Config) {
				cfg.Spec.Backend.Model.BaseURL = fake.URL
				if edit != nil {
					edit(cfg)
				}
			}})
			fn(t, ts, fake)
		})
	}
}

func TestModelStreamsTextThinkingAndUsage(t *testing.T) {
	thinking := func(c *config.Config) { c.Spec.Output.Thinking = true }
	eachModelServer(t, thinking, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.Script(fakemodel.Reply{Reasoning: "Thinking it over.", Text: "Hello there, friend.", Usage: &fakemodel.Usage{PromptTokens: 12, CompletionTokens: 5}})
		frames, _ := ts.Stream("/responses", `{"input":"hi","stream":true}`)
		var text, thought strings.Builder
		var meta, done map[string]any
		for _, f := range frames {
			switch f.Event {
			case "response.text.delta":
				text.WriteString(f.Data["delta"].(string))
			case "response.thinking.delta":
				thought.WriteString(f.Data["delta"].(string))
			case "response.agent_metadata":
				meta = f.Data
			case "response.completed":
				done = f.Data
			}
		}
		if text.String() != "Hello there, friend." || thought.String() != "Thinking it over." {
			t.Errorf("text %q, thinking %q", text.String(), thought.String())
		}
		if meta == nil || meta["model"] != "test-model" || meta["finishReason"] != "stop" || meta["provider"] == "" {
			t.Errorf("agent_metadata = %v", meta)
		}
		wantUsage := map[string]any{"inputTokens": 12.0, "outputTokens": 5.0, "totalTokens": 17.0}
		if u, _ := meta["usage"].(map[string]any); !equalJSON(u, wantUsage) {
			t.Errorf("metadata usage = %v", meta["usage"])
		}
		if done == nil || done["status"] != "completed" || !equalJSON(done["usage"], wantUsage) {
			t.Errorf("completed = %v", done)
		}

		reqs := fake.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d model calls, want 1", len(reqs))
		}
		req := reqs[0]
		if req.Header.Get("Authorization") != "Bearer "+testKey || !req.Stream || req.Model != "test-model" {
			t.Errorf("request: auth %q, stream %v, model %q", req.Header.Get("Authorization"), req.Stream, req.Model)
		}
		if len(req.Messages) != 2 || req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Text(), "You are a test agent") ||
			req.Messages[1].Role != "user" || req.Messages[1].Text() != "hi" {
			t.Errorf("messages = %+v", req.Messages)
		}
		if names := strings.Join(req.ToolNames(), ","); names != "repeat,guarded,pick_color" {
			t.Errorf("tools offered = %s", names)
		}
	})
}

func TestModelThinkingHiddenByDefault(t *testing.T) {
	eachModelServer(t, nil, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.Script(fakemodel.Reply{Reasoning: "secret thoughts", ReasoningField: "reasoning", Text: "Answer."})
		r := ts.Post("/responses", `{"input":"hi"}`)
		servertest.MustStatus(t, r, 200)
		if bytes.Contains(r.Body, []byte("secret thoughts")) || r.JSON(t)["outputText"] != "Answer." {
			t.Errorf("body = %s", r.Body)
		}
	})
}

// The tool loop: one step asks for several tools at once (an exec tool
// twice, an MCP tool, and one with arguments that break its schema); the
// next step sees every result and answers.
func TestModelToolLoop(t *testing.T) {
	mcp := fakemcp.StartHTTP(t)
	withMCP := func(c *config.Config) {
		c.Spec.MCPServers = []config.MCPServer{{Name: "calc", URL: mcp.URL, TimeoutSeconds: 10}}
	}
	eachModelServer(t, withMCP, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{
			{ID: "call_a", Name: "repeat", Arguments: `{"text":"one"}`},
			{ID: "call_b", Name: "repeat", Arguments: `{"text":"two"}`},
			{ID: "call_c", Name: "calc__add", Arguments: `{"a":2,"b":3}`},
			{ID: "call_d", Name: "repeat", Arguments: `{"text":7}`},
		}, Usage: &fakemodel.Usage{PromptTokens: 10, CompletionTokens: 4}},
			fakemodel.Reply{Text: "Done.", Usage: &fakemodel.Usage{PromptTokens: 30, CompletionTokens: 2}})
		r := ts.Post("/responses", `{"input":"use the tools"}`)
		servertest.MustStatus(t, r, 200)
		env := r.JSON(t)
		if env["outputText"] != "Done." || !equalJSON(env["usage"], map[string]any{"inputTokens": 40.0, "outputTokens": 6.0, "totalTokens": 46.0}) {
			t.Errorf("envelope = %s", r.Body)
		}
		var calls, results int
		for _, item := range env["output"].([]any) {
			switch item.(map[string]any)["type"] {
			case "tool_call":
				calls++
			case "tool_result":
				results++
			}
		}
		if calls != 4 || results != 4 {
			t.Errorf("%d tool calls and %d results in output, want 4 and 4", calls, results)
		}

		reqs := fake.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model calls, want 2", len(reqs))
		}
		answers := map[string]string{}
		for _, m := range reqs[1].Messages {
			if m.Role == "tool" {
				answers[m.ToolCallID] = m.Text()
			}
		}
		if !strings.Contains(answers["call_a"], `"one"`) || !strings.Contains(answers["call_b"], `"two"`) {
			t.Errorf("exec results: %q, %q", answers["call_a"], answers["call_b"])
		}
		if !strings.Contains(answers["call_c"], "5") {
			t.Errorf("MCP result: %q", answers["call_c"])
		}
		if !strings.HasPrefix(answers["call_d"], "Error: The arguments were refused") {
			t.Errorf("invalid arguments answered %q", answers["call_d"])
		}
	})
}

// A tool behind an approval suspends the turn; once approved it runs, and
// a denial is told to the model, which answers accordingly. The next turn
// sees the earlier call and result in its history.
func TestModelApprovalAndHistory(t *testing.T) {
	eachModelServer(t, nil, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		guarded := fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call_g", Name: "guarded", Arguments: `{"x":1}`}}}
		fake.Script(guarded, fakemodel.Reply{Text: "It ran."})
		r := ts.Post("/responses", `{"input":"run it"}`)
		servertest.MustStatus(t, r, 200)
		env := r.JSON(t)
		action, _ := env["requiredAction"].(map[string]any)
		if env["status"] != "requires_action" || action["type"] != "human_approval" || action["action"] != "guarded" {
			t.Fatalf("envelope = %s", r.Body)
		}
		session := env["sessionId"].(string)
		answer := ts.Post("/approvals/"+action["id"].(string), `{"decision":"approve"}`)
		servertest.MustStatus(t, answer, 200)
		if got := answer.JSON(t); got["status"] != "completed" || got["outputText"] != "It ran." {
			t.Fatalf("after approval: %s", answer.Body)
		}

		fake.Script(guarded, fakemodel.Reply{Text: "Understood, I will not."})
		r = ts.Post("/responses", `{"input":"run it again","sessionId":"`+session+`"}`)
		action = r.JSON(t)["requiredAction"].(map[string]any)
		answer = ts.Post("/approvals/"+action["id"].(string), `{"decision":"deny"}`)
		servertest.MustStatus(t, answer, 200)
		if got := answer.JSON(t); got["status"] != "completed" || got["outputText"] != "Understood, I will not." {
			t.Fatalf("after denial: %s", answer.Body)
		}

		reqs := fake.Requests()
		if len(reqs) != 4 {
			t.Fatalf("%d model calls, want 4", len(reqs))
		}
		denied := reqs[3].Messages[len(reqs[3].Messages)-1]
		if denied.Role != "tool" || !strings.Contains(denied.Text(), "denied") {
			t.Errorf("the model was told %q", denied.Text())
		}
		// The second turn's first call carries the first turn as history:
		// the user's words, the tool call, its result and the answer.
		var roles []string
		for _, m := range reqs[2].Messages {
			roles = append(roles, m.Role)
		}
		if got := strings.Join(roles, ","); got != "system,user,assistant,tool,assistant,user" {
			t.Fatalf("history roles = %s", got)
		}
		call := reqs[2].Messages[2].ToolCalls
		if len(call) != 1 || call[0].ID != "call_g" || call[0].Name != "guarded" || reqs[2].Messages[3].ToolCallID != "call_g" ||
			!strings.Contains(reqs[2].Messages[3].Text(), `"x":1`) || reqs[2].Messages[4].Text() != "It ran." {
			t.Errorf("history = %+v", reqs[2].Messages)
		}
	})
}

// A client tool suspends the turn until the client posts its output,
// which goes back to the model.
func TestModelClientTool(t *testing.T) {
	eachModelServer(t, nil, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call_p", Name: "pick_color", Arguments: `{}`}}},
			fakemodel.Reply{Text: "Blue it is."})
		r := ts.Post("/responses", `{"input":"pick a color"}`)
		action, _ := r.JSON(t)["requiredAction"].(map[string]any)
		if action["type"] != "client_tool" || action["name"] != "pick_color" || action["callId"] != "call_p" {
			t.Fatalf("envelope = %s", r.Body)
		}
		answer := ts.Post("/client-tools/"+action["id"].(string), `{"output":{"color":"blue"}}`)
		servertest.MustStatus(t, answer, 200)
		if got := answer.JSON(t); got["outputText"] != "Blue it is." {
			t.Fatalf("after the tool: %s", answer.Body)
		}
		last := fake.Requests()[1].Messages
		if m := last[len(last)-1]; m.Role != "tool" || m.ToolCallID != "call_p" || !strings.Contains(m.Text(), "blue") {
			t.Errorf("the model got %+v", m)
		}
	})
}

// An endpoint that refuses fails the turn with a code that says why, and
// neither the receipt nor the log holds the API key.
func TestModelEndpointErrors(t *testing.T) {
	tests := []struct {
		reply fakemodel.Reply
		code  string
	}{
		{fakemodel.Reply{Status: 401, Body: `{"error":{"message":"bad key ` + testKey + `"}}`}, "model_auth"},
		{fakemodel.Reply{Raw: "data: {not json}\n\n"}, "model_bad_response"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			var logs lockedBuffer
			fake := fakemodel.Start(t)
			fake.Script(tt.reply)
			ts := servertest.Start(t, "", servertest.Setup{Folder: "testdata/model", Config: func(c *config.Config) {
				c.Spec.Backend.Model.BaseURL = fake.URL
			}, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			r := ts.Post("/responses", `{"input":"hi"}`)
			if r.Status == 200 || !bytes.Contains(r.Body, []byte(tt.code)) {
				t.Errorf("status %d, body %s; want code %s", r.Status, r.Body, tt.code)
			}
			if bytes.Contains(r.Body, []byte(testKey)) || strings.Contains(logs.String(), testKey) {
				t.Errorf("the API key leaked: body %s\nlog:\n%s", r.Body, logs.String())
			}
		})
	}
}

// The loop stops after maxSteps model calls that all asked for tools.
func TestModelMaxSteps(t *testing.T) {
	eachModelServer(t, nil, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.SetDefault(func(fakemodel.Request) fakemodel.Reply {
			return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call_r", Name: "repeat", Arguments: `{"text":"again"}`}}}
		})
		r := ts.Post("/responses", `{"input":"loop"}`)
		if r.Status == 200 || !bytes.Contains(r.Body, []byte("model_max_steps")) {
			t.Errorf("status %d: %s", r.Status, r.Body)
		}
		if n := len(fake.Requests()); n != 4 {
			t.Errorf("%d model calls, want maxSteps 4", n)
		}
	})
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// lockedBuffer is a log sink the test reads while the server writes.
type lockedBuffer = testutil.SyncBuffer

// AG-UI frontend tools are offered to the model; when it calls one, the
// run ends with the call, and the next run's tool message answers it.
func TestModelAGUIFrontendTool(t *testing.T) {
	eachModelServer(t, nil, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "call_loc", Name: "get_location", Arguments: `{}`}}},
			fakemodel.Reply{Text: "You are in Oslo."})
		tools := `"tools":[{"name":"get_location","description":"Where the user is.","parameters":{"type":"object","properties":{}}}]`
		u1 := `{"id":"u1","role":"user","content":"where am I?"}`
		first := ts.Post("/agui", `{"threadId":"th-model",`+tools+`,"messages":[`+u1+`]}`)
		servertest.MustStatus(t, first, 200)
		if !bytes.Contains(first.Body, []byte(`"toolCallName":"get_location"`)) || !bytes.Contains(first.Body, []byte("RUN_FINISHED")) {
			t.Fatalf("first run: %s", first.Body)
		}
		if names := strings.Join(fake.Requests()[0].ToolNames(), ","); names != "repeat,guarded,pick_color,get_location" {
			t.Errorf("tools offered = %s", names)
		}
		answer := `{"id":"a1","role":"assistant","toolCalls":[{"id":"call_loc","type":"function","function":{"name":"get_location","arguments":"{}"}}]},` +
			`{"id":"t1","role":"tool","toolCallId":"call_loc","content":"{\"city\":\"Oslo\"}"}`
		second := ts.Post("/agui", `{"threadId":"th-model",`+tools+`,"messages":[`+u1+`,`+answer+`]}`)
		servertest.MustStatus(t, second, 200)
		if !bytes.Contains(second.Body, []byte(`Oslo.`)) {
			t.Fatalf("second run: %s", second.Body)
		}
		msgs := fake.Requests()[1].Messages
		if m := msgs[len(msgs)-1]; m.Role != "tool" || m.ToolCallID != "call_loc" || !strings.Contains(m.Text(), "Oslo") {
			t.Errorf("the model got %+v", m)
		}
	})
}

// Retries and timeouts, on both stores: a 429 with Retry-After is waited
// out, a 500 that lasts fails as model_unavailable, a stream slower than
// timeoutSeconds as model_timeout.
func TestModelRetriesAndTimeouts(t *testing.T) {
	oneSecond := func(c *config.Config) { c.Spec.Backend.Model.TimeoutSeconds = 1.5 }
	eachModelServer(t, oneSecond, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.Script(fakemodel.Reply{Status: 429, Header: map[string]string{"Retry-After": "0"}}, fakemodel.Reply{Text: "Second time lucky."})
		r := ts.Post("/responses", `{"input":"hi"}`)
		servertest.MustStatus(t, r, 200)
		if got := r.JSON(t)["outputText"]; got != "Second time lucky." || len(fake.Requests()) != 2 {
			t.Errorf("after a 429: %v, %d calls", got, len(fake.Requests()))
		}

		fake.SetDefault(func(fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Status: 500} })
		r = ts.Post("/responses", `{"input":"hi"}`)
		if !bytes.Contains(r.Body, []byte("model_unavailable")) {
			t.Errorf("500s: %d %s", r.Status, r.Body)
		}

		fake.SetDefault(func(fakemodel.Request) fakemodel.Reply {
			return fakemodel.Reply{Text: "far too slow to finish", ChunkDelay: time.Second}
		})
		r = ts.Post("/responses", `{"input":"hi"}`)
		if !bytes.Contains(r.Body, []byte("model_timeout")) {
			t.Errorf("slow stream: %d %s", r.Status, r.Body)
		}
		receipt := ts.Get("/responses/" + r.Header.Get("Harnest-Response-Id") + "?sessionId=" + r.Header.Get("Harnest-Session-Id"))
		if !bytes.Contains(receipt.Body, []byte(`"code":"model_timeout"`)) {
			t.Errorf("receipt %s", receipt.Body)
		}
	})
}
