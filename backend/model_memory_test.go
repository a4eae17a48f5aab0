package backend_test

import (
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// withMemoryTools turns spec.memory.tools on and serves bob and carol.
func withMemoryTools(c *config.Config) {
	c.Spec.Memory.Tools = true
	c.Auth.Tokens = []config.Token{
		{Token: "bob-token-0123456789ab", User: "bob"},
		{Token: "carol-token-0123456789", User: "carol"},
	}
}

// toolAnswers are the tool messages of a model request, by call ID.
func toolAnswers(req fakemodel.Request) map[string]string {
	out := map[string]string{}
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

// The memory tools run in the caller's memory: what bob's turn saves, his
// later turn (another session) finds, the /memory routes show, and
// carol's turn never finds.
func TestModelMemoryTools(t *testing.T) {
	eachModelServer(t, withMemoryTools, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		bob, carol := ts.As("bob-token-0123456789ab"), ts.As("carol-token-0123456789")
		fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{
			{ID: "save", Name: "memory_save", Arguments: `{"content":"Bob's favourite colour is green","key":"colour","namespace":"prefs"}`},
			{ID: "bad", Name: "memory_save", Arguments: `{"content":"x","mood":"happy"}`},
		}}, fakemodel.Reply{Text: "Noted."})
		r := bob.Post("/responses", `{"input":"remember that I like green"}`)
		servertest.MustStatus(t, r, 200)
		if r.JSON(t)["outputText"] != "Noted." {
			t.Fatalf("first turn: %s", r.Body)
		}
		reqs := fake.Requests()
		if names := strings.Join(reqs[0].ToolNames(), ","); names != "repeat,guarded,pick_color,memory_save,memory_search" {
			t.Errorf("tools offered = %s", names)
		}
		answers := toolAnswers(reqs[1])
		if !strings.Contains(answers["save"], `"key":"colour"`) || !strings.HasPrefix(answers["bad"], "Error: The arguments were refused: mood") {
			t.Errorf("save answered %q; bad arguments %q", answers["save"], answers["bad"])
		}

		search := fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "find", Name: "memory_search", Arguments: `{"query":"which colour do I like?"}`}}}
		fake.Script(search, fakemodel.Reply{Text: "Green."})
		r = bob.Post("/responses", `{"input":"what colour do I like?"}`) // a new session
		servertest.MustStatus(t, r, 200)
		reqs = fake.Requests()
		if found := toolAnswers(reqs[3])["find"]; !strings.Contains(found, `"value":"Bob's favourite colour is green"`) {
			t.Errorf("bob's search answered %q", found)
		}
		if got := bob.Get("/memory/prefs/colour"); got.Status != 200 || !strings.Contains(string(got.Body), "favourite colour is green") {
			t.Errorf("GET /memory/prefs/colour as bob: %d %s", got.Status, got.Body)
		}

		fake.Script(search, fakemodel.Reply{Text: "I don't know."})
		r = carol.Post("/responses", `{"input":"what colour do I like?"}`)
		servertest.MustStatus(t, r, 200)
		reqs = fake.Requests()
		if found := toolAnswers(reqs[5])["find"]; found != `{"memories":[]}` {
			t.Errorf("carol's search answered %q", found)
		}
		servertest.MustStatus(t, carol.Get("/memory/prefs/colour"), 404)
	})
}

// Without spec.memory.tools the model is not offered them, and a call of
// one is an unknown tool.
func TestModelMemoryToolsAreOptIn(t *testing.T) {
	eachModelServer(t, nil, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		fake.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s", Name: "memory_save", Arguments: `{"content":"x"}`}}},
			fakemodel.Reply{Text: "ok"})
		servertest.MustStatus(t, ts.Post("/responses", `{"input":"hi"}`), 200)
		reqs := fake.Requests()
		if names := strings.Join(reqs[0].ToolNames(), ","); strings.Contains(names, "memory") {
			t.Errorf("tools offered = %s", names)
		}
		if a := toolAnswers(reqs[1])["s"]; !strings.HasPrefix(a, "Error:") {
			t.Errorf("an unoffered memory tool answered %q", a)
		}
	})
}
