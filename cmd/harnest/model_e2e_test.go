package main

// The model backend end to end: two real "harnest serve" replicas on one
// real Redis serve testdata/model (a model agent with one exec tool behind
// an approval) against a fake Chat Completions endpoint in this process.
// Every transport holds the same three-turn conversation: a greeting; a
// lookup whose tool call waits for an approval answered on the other
// replica; and a question the fake answers from the history it is sent,
// so the answer proves the earlier tool result is in it. Finally no log
// line, receipt or transcript holds the API key.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
)

const (
	modelDir = "testdata/model"
	// modelKey is the folder's apiKey: it must reach the endpoint and
	// nothing else.
	modelKey = "sk-e2e-DO-NOT-LOG-4f9c2a7b1e"
	greeting = "Hello! Ask me to look something up."
	noRecall = "I find no earlier lookup in this conversation."
	// refuseMe makes the fake refuse the key with the key in its error
	// text, as providers do.
	refuseMe = "Refuse my key"
)

// modelTurns are the words of one transport's conversation. The lookup
// tool upper-cases its arguments, so its output differs from what the
// model asked.
type modelTurns struct{ hello, lookup, recall, query string }

func turnsFor(transport string) modelTurns {
	query := "oslo weather for " + transport
	return modelTurns{hello: "Hello there", lookup: "Please look up " + query,
		recall: "What did the lookup return? Asked over " + transport, query: query}
}

func (c modelTurns) callID() string     { return "call_" + strings.ReplaceAll(c.query, " ", "_") }
func (c modelTurns) arguments() string  { return `{"query":"` + c.query + `"}` }
func (c modelTurns) toolOutput() string { return `{"QUERY":"` + strings.ToUpper(c.query) + `"}` }
func (c modelTurns) answer() string     { return "The lookup returned " + c.toolOutput() + "." }
func (c modelTurns) recalled() string   { return "Earlier the lookup returned " + c.toolOutput() + "." }

// modelReply is the fake model: it answers from the conversation it is
// sent (see modelTurns).
func modelReply(req fakemodel.Request) fakemodel.Reply {
	usage := &fakemodel.Usage{PromptTokens: 20, CompletionTokens: 8}
	if len(req.Messages) == 0 {
		return fakemodel.Reply{Status: http.StatusBadRequest}
	}
	last := req.Messages[len(req.Messages)-1]
	text := last.Text()
	if text == refuseMe {
		return fakemodel.Reply{Status: http.StatusUnauthorized,
			Body: `{"error":{"message":"Incorrect API key provided: ` + req.Header.Get("Authorization") + `"}}`}
	}
	if last.Role == "tool" {
		return fakemodel.Reply{Text: "The lookup returned " + text + ".", Usage: usage}
	}
	if query, ok := strings.CutPrefix(text, "Please look up "); ok {
		c := modelTurns{query: query}
		return fakemodel.Reply{Usage: usage,
			ToolCalls: []fakemodel.ToolCall{{ID: c.callID(), Name: "lookup", Arguments: c.arguments()}}}
	}
	if strings.HasPrefix(text, "What did the lookup return") {
		for i := len(req.Messages) - 2; i >= 0; i-- {
			if m := req.Messages[i]; m.Role == "tool" {
				return fakemodel.Reply{Text: "Earlier the lookup returned " + m.Text() + ".", Usage: usage}
			}
		}
		return fakemodel.Reply{Text: noRecall, Usage: usage}
	}
	return fakemodel.Reply{Text: greeting, Usage: usage}
}

// modelRun is the running pair of replicas and what the test read from
// them.
type modelRun struct {
	a, b *harnest
	fake *fakemodel.Server

	mu   sync.Mutex
	read [][]byte // receipts and transcripts, grepped for the key at the end
}

func TestModelConversationAcrossReplicas(t *testing.T) {
	t.Parallel()
	redisURL := realRedis(t)
	fake := fakemodel.Start(t)
	fake.SetDefault(modelReply)
	env := []string{"E2E_MODEL_URL=" + fake.URL, "E2E_MODEL_KEY=" + modelKey, "E2E_KEY_PREFIX=" + testutil.Prefix(t)}
	m := &modelRun{fake: fake,
		a: startHarnest(t, modelDir, env, "--redis-url", redisURL, "--log-level", "debug", "--shutdown-grace", "2s"),
		b: startHarnest(t, modelDir, env, "--redis-url", redisURL, "--log-level", "debug", "--log-format", "json", "--shutdown-grace", "2s"),
	}
	t.Run("transports", func(t *testing.T) {
		for name, run := range map[string]func(*testing.T){
			"responses JSON": m.viaJSON, "responses SSE": m.viaSSE, "live": m.viaLive, "agui": m.viaAGUI, "a2a": m.viaA2A,
			"refused key": m.viaRefusal,
		} {
			t.Run(name, func(t *testing.T) { t.Parallel(); run(t) })
		}
	})

	reqs := fake.Requests()
	if len(reqs) == 0 {
		t.Fatal("the fake endpoint was never called")
	}
	for _, r := range reqs {
		if got := r.Header.Get("Authorization"); got != "Bearer "+modelKey {
			t.Fatalf("a model call had Authorization %q, want the folder's key", got)
		}
	}
	m.a.mustStop(t)
	m.b.mustStop(t)
	logs := ""
	for name, h := range map[string]*harnest{"A": m.a, "B": m.b} {
		out := h.stdout.String() + h.stderr.String()
		if strings.Contains(out, modelKey) {
			t.Errorf("replica %s's output holds the API key:\n%s", name, out)
		}
		logs += out
	}
	// The provider's error text, which quoted the key, is logged redacted.
	if !strings.Contains(logs, "Incorrect API key provided") {
		t.Errorf("no replica logged the endpoint's refusal:\n%s", logs)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, body := range m.read {
		if bytes.Contains(body, []byte(modelKey)) {
			t.Errorf("a receipt or transcript holds the API key: %s", body)
		}
	}
	t.Logf("%d model calls; %d receipts and transcripts grepped", len(reqs), len(m.read))
}

// finish checks what a conversation left, from both replicas: the
// transcript (three turns, the lookup's call and result kept with the
// second answer), every response's receipt (the same on A and B), and the
// history the fake was sent for the third turn.
func (m *modelRun) finish(t *testing.T, sid string, turns modelTurns) {
	t.Helper()
	tr := m.b.get(t, "/sessions/"+sid+"/messages")
	mustStatus(t, tr, http.StatusOK)
	var transcript struct {
		Messages []struct {
			Role     string
			Metadata struct {
				ResponseID string `json:"responseId"`
				Tools      []struct{ Type, Name string }
			}
		}
	}
	if err := json.Unmarshal(tr.Body, &transcript); err != nil || len(transcript.Messages) != 6 {
		t.Fatalf("transcript (%v), want 6 messages: %s", err, tr.Body)
	}
	read := [][]byte{tr.Body}
	for i, msg := range transcript.Messages {
		if want := []string{"user", "assistant"}[i%2]; msg.Role != want {
			t.Fatalf("transcript message %d is %s, want %s: %s", i, msg.Role, want, tr.Body)
		}
		if msg.Role != "assistant" {
			continue
		}
		if tools := msg.Metadata.Tools; i == 3 && (len(tools) != 2 || tools[0].Name != "lookup" || tools[1].Type != "tool_result") {
			t.Errorf("the lookup's answer keeps tools %+v, want its call and result", tools)
		}
		ids := map[string]any{"id": msg.Metadata.ResponseID, "sessionId": sid}
		onA, onB := m.a.get(t, receiptPath(ids)), m.b.get(t, receiptPath(ids))
		if v := completed(t, onB); !bytes.Equal(onA.Body, onB.Body) {
			t.Errorf("receipt of %v differs:\nA %s\nB %s", v["id"], onA.Body, onB.Body)
		}
		read = append(read, onA.Body, onB.Body)
	}
	m.keep(read...)
	m.mustHaveSentHistory(t, turns)
}

// keep records bodies to grep for the key at the end.
func (m *modelRun) keep(bodies ...[]byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.read = append(m.read, bodies...)
}

// mustHaveSentHistory finds the model call of the third turn and checks
// that it carried the whole conversation, the lookup's call and result
// included.
func (m *modelRun) mustHaveSentHistory(t *testing.T, turns modelTurns) {
	t.Helper()
	for _, req := range m.fake.Requests() {
		n := len(req.Messages)
		if n == 0 || req.Messages[n-1].Text() != turns.recall {
			continue
		}
		var roles []string
		for _, msg := range req.Messages {
			roles = append(roles, msg.Role)
		}
		if got := strings.Join(roles, ","); got != "system,user,assistant,user,assistant,tool,assistant,user" {
			t.Fatalf("the third turn sent roles %s", got)
		}
		calls, result := req.Messages[4].ToolCalls, req.Messages[5]
		if len(calls) != 1 || calls[0].ID != turns.callID() || calls[0].Name != "lookup" || calls[0].Arguments != turns.arguments() ||
			result.ToolCallID != turns.callID() || result.Text() != turns.toolOutput() {
			t.Fatalf("the third turn's history holds the call %+v and the result %+v", calls, result)
		}
		return
	}
	t.Fatalf("no model call for %q", turns.recall)
}

// js is v as JSON.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// mustText fails unless got is want.
func mustText(t *testing.T, what string, got any, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s %q, want %q", what, got, want)
	}
}

// ---------------------------------------------------------------------------
// POST /responses as JSON and as SSE

func (m *modelRun) viaJSON(t *testing.T) {
	turns := turnsFor("json")
	_, first := m.a.completeResponse(t, js(map[string]any{"input": turns.hello}))
	mustText(t, "turn 1 outputText", first["outputText"], greeting)
	sid := first["sessionId"].(string)

	r := m.a.post(t, "/responses", js(map[string]any{"input": turns.lookup, "sessionId": sid}))
	v, action := pendingAction(t, r, "human_approval")
	mustText(t, "the approval's action", action["action"], "lookup")
	if js(action["arguments"]) != turns.arguments() {
		t.Errorf("requiredAction.arguments %s, want the lookup's %s: %s", js(action["arguments"]), turns.arguments(), r.Body)
	}
	aid := action["id"].(string)
	final := completed(t, m.b.post(t, "/approvals/"+aid, `{"decision":"approve"}`))
	if final["id"] != v["id"] || final["approvalId"] != aid {
		t.Fatalf("the approval on B answered %v, want response %v approved by %s", final, v["id"], aid)
	}
	mustText(t, "turn 2 outputText", final["outputText"], turns.answer())
	mustHaveItem(t, final["output"], "tool_result", "output", turns.toolOutput())

	_, third := m.b.completeResponse(t, js(map[string]any{"input": turns.recall, "sessionId": sid}))
	mustText(t, "turn 3 outputText", third["outputText"], turns.recalled())
	m.finish(t, sid, turns)

}

// viaRefusal: an endpoint that refuses the key, quoting it, fails the
// turn with model_auth; the key reaches neither the caller nor the
// receipt (nor the log, checked at the end).
func (m *modelRun) viaRefusal(t *testing.T) {
	refused := m.a.post(t, "/responses", js(map[string]any{"input": refuseMe}))
	ids := map[string]any{"id": refused.Header.Get("Harnest-Response-Id"), "sessionId": refused.Header.Get("Harnest-Session-Id")}
	receipt, v := m.b.waitReceipt(t, ids, 10*time.Second)
	if refused.Status == http.StatusOK || refused.JSON(t)["code"] != "model_auth" || v["status"] != "failed" || errorCode(v) != "model_auth" {
		t.Errorf("a refused key answered %d %s, receipt %s; want model_auth", refused.Status, refused.Body, receipt.Body)
	}
	m.keep(refused.Body, receipt.Body)
}

// mustHaveItem fails unless the envelope output holds a lookup item of
// typ whose field is want as JSON.
func mustHaveItem(t *testing.T, output any, typ, field, want string) {
	t.Helper()
	items, _ := output.([]any)
	for _, item := range items {
		if it, _ := item.(map[string]any); it["type"] == typ && it["name"] == "lookup" && js(it[field]) == want {
			return
		}
	}
	t.Fatalf("output %s has no lookup %s with %s %s", js(output), typ, field, want)
}

// pendingFollow is an events stream opened in the background: the follow
// of a waiting response may send nothing until it resumes.
type pendingFollow struct {
	opened chan struct{} // closed once the response headers (or an error) came
	stream *sseStream
	err    error
}

// followLater opens GET path on h in the background.
func (h *harnest) followLater(t *testing.T, path string) *pendingFollow {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	f := &pendingFollow{opened: make(chan struct{})}
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", h.URL+path, nil)
		resp, err := h.client.Do(req)
		if err == nil && (resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream") {
			err = fmt.Errorf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			resp.Body.Close()
		}
		if err != nil {
			f.err = fmt.Errorf("GET %s: %w", path, err)
			close(f.opened)
			return
		}
		f.stream = &sseStream{resp: resp, frames: make(chan sseFrame, 64), cancel: cancel}
		close(f.opened)
		f.stream.read(ctx)
		resp.Body.Close()
	}()
	return f
}

// wait waits up to limit for the stream; false when it did not open.
func (f *pendingFollow) wait(limit time.Duration) bool {
	select {
	case <-f.opened:
		return true
	case <-time.After(limit):
		return false
	}
}

func (m *modelRun) viaSSE(t *testing.T) {
	turns := turnsFor("sse")
	stream := func(h *harnest, input, sid, status string) []sseFrame {
		t.Helper()
		body := map[string]any{"input": input, "stream": true}
		if sid != "" {
			body["sessionId"] = sid
		}
		frames := h.openStream(t, js(body)).rest(t, 20*time.Second)
		mustEndCompleted(t, frames, status)
		return frames
	}
	frames := stream(m.a, turns.hello, "", "completed")
	text, _ := textOf(frames)
	mustText(t, "turn 1 text", text, greeting)
	sid := frames[0].Data["sessionId"].(string)

	frames = stream(m.a, turns.lookup, sid, "requires_action")
	calls, approvals := framesOf(frames, "response.tool_call"), framesOf(frames, "approval.requested")
	if len(calls) != 1 || calls[0].Data["name"] != "lookup" || js(calls[0].Data["arguments"]) != turns.arguments() ||
		len(approvals) != 1 || indexOf(frames, "response.tool_call") > indexOf(frames, "approval.requested") {
		t.Fatalf("turn 2 sent %v, want the lookup's tool_call then approval.requested", eventNames(frames))
	}
	approval, _ := approvals[0].Data["approval"].(map[string]any)
	mustText(t, "approval.requested action", approval["action"], "lookup")
	if js(approval["arguments"]) != turns.arguments() {
		t.Errorf("approval.requested arguments %s, want the lookup's %s", js(approval["arguments"]), turns.arguments())
	}
	rid, after := frames[0].Data["responseId"].(string), frameSeq(t, frames[len(frames)-1])

	// B follows the response from where A's stream ended, then takes the
	// approval. The follow should answer at once (sse.Start: "a stream
	// whose first event may wait ... so the client sees the 200 at once").
	follow := m.b.followLater(t, eventsPath(rid, sid, after))
	if !follow.wait(5 * time.Second) {
		t.Errorf("GET /responses/{id}/events?after=%d of a response waiting for an approval sent no status line within 5s: "+
			"a client cannot tell a live follow from a hung server (no headers, no keep-alives until the next event)", after)
	}
	final := completed(t, m.b.post(t, "/approvals/"+approval["id"].(string), `{"decision":"approve"}`))
	mustText(t, "the approval's answer", final["outputText"], turns.answer())
	if !follow.wait(20*time.Second) || follow.err != nil {
		t.Fatalf("the follow on B did not open after the approval: %v", follow.err)
	}
	rest := follow.stream.rest(t, 20*time.Second)
	mustBeConsecutive(t, rest, after+1)
	results := framesOf(rest, "response.tool_result")
	if len(results) != 1 || js(results[0].Data["output"]) != turns.toolOutput() {
		t.Fatalf("resumed events %v, want one tool_result with %s", eventNames(rest), turns.toolOutput())
	}
	text, _ = textOf(rest)
	end := rest[len(rest)-1]
	if end.Event != "response.completed" || end.Data["status"] != "completed" || text != turns.answer() || end.Data["outputText"] != text {
		t.Fatalf("resumed events end with %s after the text %q, want completed with %q", end.Raw, text, turns.answer())
	}

	frames = stream(m.b, turns.recall, sid, "completed")
	mustText(t, "turn 3 outputText", frames[len(frames)-1].Data["outputText"], turns.recalled())
	m.finish(t, sid, turns)
}

// writeModelFolder writes an agent folder in dir with config.yaml cfg, the
// instructions "Use the tools." and testdata/model's agent card, and
// returns dir.
func writeModelFolder(t *testing.T, dir, cfg string) string {
	t.Helper()
	files := map[string]string{"config.yaml": cfg, "instructions.md": "Use the tools.\n"}
	card, err := os.ReadFile(filepath.Join(modelDir, "agent-card.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files["agent-card.yaml"] = string(card)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
