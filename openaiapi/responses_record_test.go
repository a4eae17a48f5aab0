package openaiapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// echoedFields are the members of the response object that repeat the
// request.
var echoedFields = []string{"instructions", "tools", "tool_choice", "temperature", "top_p", "max_output_tokens",
	"parallel_tool_calls", "truncation", "text", "reasoning", "user", "service_tier", "metadata", "store", "background"}

// A response read back (GET, on another replica) repeats the request as
// the create request's answer did: instructions, tools, tool_choice and
// the sampling settings it sent.
func TestResponsesGetRepeatsTheRequest(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, servertest.Setup{Config: openResponses()}, func(t *testing.T, replicas []*servertest.Server) {
		body := `{"model":"hello","input":"hi","instructions":"Be brief.","tool_choice":"none",
			"tools":[{"type":"function","name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{}}}],
			"temperature":0.25,"top_p":0.5,"max_output_tokens":200,"parallel_tool_calls":false,"truncation":"auto",
			"text":{"format":{"type":"text"},"verbosity":"low"},"reasoning":{"effort":"low"},"user":"u-1","service_tier":"auto",
			"metadata":{"k":"v"}}`
		created := replicas[0].Post("/v1/responses", body)
		servertest.MustStatus(t, created, http.StatusOK)
		want := created.JSON(t)
		for field, v := range map[string]string{"instructions": `"Be brief."`, "tool_choice": `"none"`, "temperature": `0.25`,
			"max_output_tokens": `200`, "parallel_tool_calls": `false`, "reasoning": `{"effort":"low"}`} {
			if got, _ := json.Marshal(want[field]); string(got) != v {
				t.Fatalf("created %s = %s, want %s", field, got, v)
			}
		}
		id := want["id"].(string)
		for _, ts := range replicas {
			for _, path := range []string{"/v1/responses/" + id, "/v1/responses/" + id + "/cancel"} {
				var got map[string]any
				if strings.HasSuffix(path, "/cancel") {
					got = ts.Post(path, "").JSON(t)
				} else {
					got = ts.Get(path).JSON(t)
				}
				for _, field := range echoedFields {
					a, _ := json.Marshal(want[field])
					b, _ := json.Marshal(got[field])
					if string(a) != string(b) {
						t.Fatalf("%s: %s = %s, the create answer had %s", path, field, b, a)
					}
				}
			}
		}
		bad := replicas[0].Post("/v1/responses", `{"model":"hello","input":"hi","temperature":"hot"}`)
		if bad.Status != http.StatusBadRequest || !strings.Contains(string(bad.Body), `"param":"temperature"`) {
			t.Fatalf("a temperature that is not a number: %d %s", bad.Status, bad.Body)
		}
	})
}

// gate holds the turns of blockingAgent until it opens; arm closes the
// gate again for the next store's run.
type gate struct {
	mu      sync.Mutex
	started chan struct{}
	release chan struct{}
}

func (g *gate) arm() (started <-chan struct{}, open func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.started, g.release = make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	release := g.release
	return g.started, func() { once.Do(func() { close(release) }) }
}

// blockingAgent answers "done" once the gate opens.
func blockingAgent(g *gate) runtime.Agent {
	return runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		g.mu.Lock()
		started, release := g.started, g.release
		g.mu.Unlock()
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "done"})
	})
}

// GET /v1/responses/{id}/input_items lists the request's input items while
// the response still runs (a background response), on any replica, paged
// with limit, order and after.
func TestResponsesInputItemsBeforeTheTurnCompletes(t *testing.T) {
	g := &gate{}
	setup := servertest.Setup{Config: openResponses(), Agent: blockingAgent(g)}
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
		started, open := g.arm()
		defer open()
		body := `{"model":"hello","background":true,"input":[
			{"role":"system","content":"Be brief."},
			{"role":"user","content":"first question"},
			{"role":"assistant","content":"first answer"},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"second"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}]}`
		created := replicas[0].Post("/v1/responses", body)
		servertest.MustStatus(t, created, http.StatusOK)
		<-started
		id := created.JSON(t)["id"].(string)
		if status := replicas[1].Get("/v1/responses/" + id).JSON(t)["status"]; status != "in_progress" && status != "queued" {
			t.Fatalf("status = %v, want it running", status)
		}
		list := replicas[1].Get("/v1/responses/" + id + "/input_items?order=asc").JSON(t)
		data, _ := list["data"].([]any)
		if len(data) != 4 || list["object"] != "list" || list["has_more"] != false {
			t.Fatalf("input items = %v", list)
		}
		var roles []string
		for _, it := range data {
			m := it.(map[string]any)
			if m["type"] != "message" || m["id"] == "" || m["status"] != "completed" {
				t.Fatalf("item = %v", m)
			}
			roles = append(roles, m["role"].(string))
		}
		if strings.Join(roles, " ") != "system user assistant user" {
			t.Fatalf("roles = %v", roles)
		}
		last, _ := json.Marshal(data[3])
		if !strings.Contains(string(last), `"text":"second"`) || !strings.Contains(string(last), `[image image/png attached]`) || strings.Contains(string(last), "base64") {
			t.Fatalf("last item = %s", last)
		}
		// Newest first by default, one page at a time.
		page := replicas[0].Get("/v1/responses/" + id + "/input_items?limit=3").JSON(t)
		if d := page["data"].([]any); len(d) != 3 || page["has_more"] != true || page["first_id"] != data[3].(map[string]any)["id"] {
			t.Fatalf("first page = %v", page)
		}
		next := replicas[0].Get("/v1/responses/" + id + "/input_items?limit=3&after=" + page["last_id"].(string)).JSON(t)
		if d := next["data"].([]any); len(d) != 1 || next["has_more"] != false || next["first_id"] != data[0].(map[string]any)["id"] {
			t.Fatalf("second page = %v", next)
		}
		if r := replicas[0].Get("/v1/responses/" + id + "/input_items?order=up"); r.Status != http.StatusBadRequest {
			t.Fatalf("order=up: %d %s", r.Status, r.Body)
		}
		open()

		// A streaming response's input items, once its stream started.
		started, open = g.arm()
		defer open()
		// The agent waits for the test, which waits for response.created:
		// it comes at once, not with the agent's first word.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stream := responsesClient(replicas[0], "").NewStreaming(ctx, ask("streamed question"))
		defer stream.Close()
		if !stream.Next() || stream.Current().Type != "response.created" {
			t.Fatalf("first event: %v", stream.Err())
		}
		<-started
		streamID := stream.Current().AsResponseCreated().Response.ID
		items := replicas[1].Get("/v1/responses/" + streamID + "/input_items").JSON(t)
		if d, _ := items["data"].([]any); len(d) != 1 || !strings.Contains(string(mustJSON(d[0])), `"text":"streamed question"`) {
			t.Fatalf("input items of a running stream = %v", items)
		}
		open()
		for stream.Next() {
		}
	})
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }
