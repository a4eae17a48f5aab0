package neutral_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/media/mediatest"
	"github.com/harnest/harnest/runtime"
)

// contentAgent describes the content parts it got, reading media bytes.
var contentAgent = runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	var parts []string
	for _, c := range turn.Content {
		if c.Type == "text" {
			parts = append(parts, "text:"+c.Text)
			continue
		}
		data, err := c.Data(ctx)
		if err != nil {
			return err
		}
		parts = append(parts, fmt.Sprintf("%s:%s:%d", c.Type, c.MediaType, len(data)))
	}
	return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: strings.Join(parts, " ")})
})

func TestContentPartsInput(t *testing.T) {
	eachStore(t, setup{Agent: contentAgent}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"m"}`), 201)
		png := mediatest.PNG(4, 3)
		id := mustUpload(t, ts, "m", "image/png", png)
		r := ts.Post("/responses", `{"sessionId":"m","input":[{"type":"text","text":"what is this?"},{"type":"image","assetId":"`+id+`"}]}`)
		mustStatus(t, r, 200)
		want := fmt.Sprintf("text:what is this? image:image/png:%d", len(png))
		if got := r.JSON(t)["outputText"]; got != want {
			t.Fatalf("agent saw %q, want %q", got, want)
		}
		msgs := ts.Get("/sessions/m/messages").JSON(t)["messages"].([]any)
		user := fmt.Sprint(msgs[0].(map[string]any)["content"])
		if !strings.Contains(user, "attached") || !strings.Contains(user, "image/png") {
			t.Fatalf("transcript keeps %s", user)
		}
		for _, input := range []string{
			`[]`, `[{"type":"image"}]`, `[{"type":"text"}]`, `[{"type":"sound","assetId":"x"}]`,
			`[{"type":"text","text":"a","extra":1}]`, `[{"type":"text","text":"  "}]`, `["hi"]`,
			`[{"type":"image","assetId":"asset_missing"}]`, `[{"type":"audio","assetId":"` + id + `"}]`,
		} {
			mustStatus(t, ts.Post("/responses", `{"sessionId":"m","input":`+input+`}`), 400)
		}
		// Media needs an existing session.
		mustStatus(t, ts.Post("/responses", `{"input":[{"type":"image","assetId":"`+id+`"}]}`), 400)
	})
}

// A data part and a file by URL reach the agent as they are (the URL is
// never fetched); bad ones are refused and nothing runs.
func TestDataAndFileURLParts(t *testing.T) {
	seen := runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		var parts []string
		for _, c := range turn.Content {
			switch c.Type {
			case "data":
				parts = append(parts, "data:"+string(c.Value))
			case "file":
				parts = append(parts, "file:"+c.URL+":"+c.MediaType+":"+c.Name)
			default:
				parts = append(parts, c.Type+":"+c.Text)
			}
		}
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: strings.Join(parts, " ")})
	})
	eachStore(t, setup{Agent: seen}, func(t *testing.T, ts *testServer) {
		r := ts.Post("/responses", `{"input":[{"type":"text","text":"book it"},{"type":"data","data":{"seats": [1, 2]}},`+
			`{"type":"file","url":"https://files.example/plan.pdf","mediaType":"application/pdf","name":"plan.pdf"}]}`)
		mustStatus(t, r, 200)
		want := `text:book it data:{"seats":[1,2]} file:https://files.example/plan.pdf:application/pdf:plan.pdf`
		if got := r.JSON(t)["outputText"]; got != want {
			t.Fatalf("agent saw %q, want %q", got, want)
		}
		for _, input := range []string{
			`[{"type":"data"}]`, `[{"type":"data","data":1,"extra":2}]`,
			`[{"type":"file","url":""}]`, `[{"type":"file","url":"ftp://x/y"}]`, `[{"type":"file","url":"https://x/y","size":1}]`,
			`[{"type":"image","url":"https://x/y.png"}]`,
		} {
			mustStatus(t, ts.Post("/responses", `{"input":`+input+`}`), 400)
		}
		if got := ts.Get("/sessions").JSON(t)["sessions"].([]any); len(got) != 1 {
			t.Fatalf("refused inputs made sessions: %v", got)
		}
	})
}
