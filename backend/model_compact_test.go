package backend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// Compaction of long sessions (model_compact.go), through a whole server
// on each store against a fake endpoint that counts tokens its own way.

// fakeTokens is the fake endpoint's own count of a prompt's tokens: three
// characters a token (not the backend's four), three a message, and the
// tools' JSON. The backend learns the difference from the reported usage.
func fakeTokens(req fakemodel.Request) int {
	n := 0
	for _, m := range req.Messages {
		n += 3 + (len(m.Text())+2)/3
		for _, c := range m.ToolCalls {
			n += 3 + (len(c.Name)+len(c.Arguments)+2)/3
		}
	}
	for _, tool := range req.Tools {
		n += (len(tool) + 2) / 3
	}
	return n
}

// isSummaryRequest tells the summariser's calls from the turns'.
func isSummaryRequest(req fakemodel.Request) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Text(), "You compact a conversation")
}

// counting makes fake answer every request with its token count as usage:
// a short reply to a turn, a numbered summary to a summary request.
func counting(fake *fakemodel.Server) {
	var mu sync.Mutex
	summaries := 0
	fake.SetDefault(func(req fakemodel.Request) fakemodel.Reply {
		usage := &fakemodel.Usage{PromptTokens: fakeTokens(req), CompletionTokens: 5}
		if isSummaryRequest(req) {
			mu.Lock()
			summaries++
			n := summaries
			mu.Unlock()
			return fakemodel.Reply{Text: fmt.Sprintf("SUMMARY-%d: the user sent numbered notes; the assistant acknowledged each.", n), Usage: usage}
		}
		return fakemodel.Reply{Text: "Noted, thank you for the update.", Usage: usage}
	})
}

func userMessage(i int) string {
	return fmt.Sprintf("Message number %03d: here is one more note about topic %d for you.", i, i%7)
}

// runTurns sends n turns to one session (made by the first) and returns it.
func runTurns(t *testing.T, ts *servertest.Server, session string, from, n int) string {
	t.Helper()
	session, _ = runTurnsUsage(t, ts, session, from, n)
	return session
}

// runTurnsUsage is runTurns, and the input tokens the receipts report in all.
func runTurnsUsage(t *testing.T, ts *servertest.Server, session string, from, n int) (string, int) {
	t.Helper()
	input := 0
	for i := from; i < from+n; i++ {
		body, _ := json.Marshal(map[string]any{"input": userMessage(i), "sessionId": session})
		if session == "" {
			body, _ = json.Marshal(map[string]any{"input": userMessage(i)})
		}
		r := ts.Post("/responses", string(body))
		servertest.MustStatus(t, r, 200)
		env := r.JSON(t)
		if env["status"] != "completed" {
			t.Fatalf("turn %d: %s", i, r.Body)
		}
		session, _ = env["sessionId"].(string)
		if usage, ok := env["usage"].(map[string]any); ok {
			input += int(usage["inputTokens"].(float64))
		}
	}
	return session, input
}

// readTranscript reads every page of a session's messages.
func readTranscript(t *testing.T, ts *servertest.Server, session string) []map[string]any {
	t.Helper()
	var out []map[string]any
	cursor := ""
	for range 100 {
		path := "/sessions/" + session + "/messages?limit=100"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		r := ts.Get(path)
		servertest.MustStatus(t, r, 200)
		var page struct {
			Messages   []map[string]any `json:"messages"`
			NextCursor *string          `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Body, &page); err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Messages...)
		if page.NextCursor == nil {
			return out
		}
		cursor = *page.NextCursor
	}
	t.Fatal("too many pages")
	return nil
}

// compactions are a transcript's compaction items.
func compactions(msgs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		if m["type"] == "compaction" {
			out = append(out, m)
		}
	}
	return out
}

func promptText(req fakemodel.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Text())
		b.WriteString("\n")
	}
	return b.String()
}

const compactBudget = 600

func withBudget(c *config.Config) {
	c.Spec.Backend.Model.Context = &config.ModelContext{MaxTokens: compactBudget, KeepRecent: 6}
}

// A session of 300 messages (150 turns): every prompt the endpoint gets,
// the summariser's included, stays within the budget by the endpoint's own
// count; compaction items are stored, listed in the transcript with the
// range they replace, and the next prompt holds the newest summary and no
// replaced message.
func TestModelCompactsLongSession(t *testing.T) {
	eachModelServer(t, withBudget, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		counting(fake)
		session, reported := runTurnsUsage(t, ts, "", 0, 150)

		reqs := fake.Requests()
		turns, sent := 0, 0
		for i, req := range reqs {
			sent += fakeTokens(req)
			if n := fakeTokens(req); n > compactBudget {
				t.Errorf("request %d (summary %v) holds %d tokens, over the budget of %d", i, isSummaryRequest(req), n, compactBudget)
			}
			if !isSummaryRequest(req) {
				turns++
			}
		}
		if turns != 150 {
			t.Fatalf("%d turn requests, want 150", turns)
		}
		if reported != sent {
			t.Errorf("the receipts report %d input tokens, the endpoint counted %d (the summaries' calls included)", reported, sent)
		}

		msgs := readTranscript(t, ts, session)
		items := compactions(msgs)
		if len(items) == 0 || len(msgs)-len(items) != 300 {
			t.Fatalf("%d messages with %d compaction items; want 300 messages and some items", len(msgs), len(items))
		}
		newest := items[len(items)-1]
		replaces, _ := newest["replaces"].(map[string]any)
		to := int(replaces["toIndex"].(float64))
		if newest["role"] != "system" || replaces["fromIndex"] != 0.0 || replaces["fromMessageId"] != msgs[0]["id"] ||
			replaces["toMessageId"] != msgs[to]["id"] {
			t.Errorf("newest item = %v (first message %v, message %d %v)", newest, msgs[0]["id"], to, msgs[to]["id"])
		}
		if meta, _ := newest["metadata"].(map[string]any); meta["responseId"] == nil || meta["reason"] != "budget" || meta["model"] != "test-model" {
			t.Errorf("newest item's metadata = %v", newest["metadata"])
		}

		// The newest item is reused: the prompt of the turn after it has
		// its summary and none of the messages it replaces.
		summary := newest["content"].(string)
		var after *fakemodel.Request
		for i := len(reqs) - 1; i >= 0; i-- {
			if !isSummaryRequest(reqs[i]) && strings.Contains(promptText(reqs[i]), summary) {
				after = &reqs[i]
			}
		}
		if after == nil {
			t.Fatalf("no turn's prompt holds the newest summary %q", summary)
		}
		prompt := promptText(*after)
		for i := 0; i <= to; i++ {
			if text, ok := msgs[i]["content"].(string); ok && msgs[i]["role"] == "user" && strings.Contains(prompt, text) {
				t.Fatalf("the prompt after compaction still holds replaced message %d %q", i, text)
			}
		}
		for _, m := range after.Messages {
			if m.Role == "system" && strings.HasPrefix(m.Text(), "Summary of the earlier conversation:") {
				return
			}
		}
		t.Errorf("the summary is not sent as a system message: %+v", after.Messages)
	})
}

// POST /sessions/{id}/compact: on demand, for a model agent without a
// budget; the next turn's prompt is the summary and the messages kept; a
// second call has nothing left; 404 for another user's or no session, 409
// while a response holds the session, 400 for a bad body.
func TestModelCompactOnDemand(t *testing.T) {
	users := func(c *config.Config) {
		c.Auth.Tokens = []config.Token{{Token: "token-alice-0123456789", User: "alice"}, {Token: "token-bob-0123456789", User: "bob"}}
	}
	eachModelServer(t, users, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		counting(fake)
		alice, bob := ts.As("token-alice-0123456789"), ts.As("token-bob-0123456789")
		session := runTurns(t, alice, "", 0, 12) // messages 0..23

		r := alice.Post("/sessions/"+session+"/compact", `{"keepRecent":4}`)
		servertest.MustStatus(t, r, 200)
		var out struct {
			Object     string         `json:"object"`
			Compacted  bool           `json:"compacted"`
			Compaction map[string]any `json:"compaction"`
		}
		if err := json.Unmarshal(r.Body, &out); err != nil {
			t.Fatal(err)
		}
		replaces, _ := out.Compaction["replaces"].(map[string]any)
		if out.Object != "session.compaction" || !out.Compacted || replaces["fromIndex"] != 0.0 || replaces["toIndex"] != 19.0 {
			t.Fatalf("compact = %s", r.Body)
		}
		if meta, _ := out.Compaction["metadata"].(map[string]any); meta["reason"] != "request" || meta["summarized"] != 20.0 || meta["responseId"] != nil {
			t.Errorf("metadata = %v", out.Compaction["metadata"])
		}
		msgs := readTranscript(t, alice, session)
		if len(msgs) != 25 || msgs[24]["type"] != "compaction" || msgs[24]["id"] != out.Compaction["id"] {
			t.Fatalf("transcript has %d entries, the last %v", len(msgs), msgs[len(msgs)-1])
		}

		before := len(fake.Requests())
		runTurns(t, alice, session, 12, 1)
		reqs := fake.Requests()[before:]
		if len(reqs) != 1 {
			t.Fatalf("%d requests for the turn after compaction, want 1", len(reqs))
		}
		prompt := promptText(reqs[0])
		if !strings.Contains(prompt, out.Compaction["content"].(string)) || strings.Contains(prompt, userMessage(9)) ||
			!strings.Contains(prompt, userMessage(10)) || !strings.Contains(prompt, userMessage(11)) {
			t.Errorf("prompt after compaction:\n%s", prompt)
		}

		// Six messages after the range now (two of them the last turn's):
		// keeping ten leaves nothing to summarise.
		r = alice.Post("/sessions/"+session+"/compact", `{"keepRecent":10}`)
		servertest.MustStatus(t, r, 200)
		if got := r.JSON(t); got["compacted"] != false || got["compaction"].(map[string]any)["id"] != out.Compaction["id"] {
			t.Errorf("second compact = %s", r.Body)
		}

		servertest.MustStatus(t, bob.Post("/sessions/"+session+"/compact", ``), 404)
		servertest.MustStatus(t, alice.Post("/sessions/nosuchsession/compact", ``), 404)
		servertest.MustStatus(t, alice.Post("/sessions/"+session+"/compact", `{"keepRecent":-1}`), 400)
		servertest.MustStatus(t, alice.Post("/sessions/"+session+"/compact", `{"keep":1}`), 400)

		// Busy: a background turn holds the session while the model is slow.
		fake.Script(fakemodel.Reply{Text: "slow", FirstByteDelay: 1500 * time.Millisecond})
		body, _ := json.Marshal(map[string]any{"input": "slow one", "sessionId": session, "background": true})
		started := alice.Post("/responses", string(body))
		if started.Status != 200 && started.Status != 202 || started.JSON(t)["status"] != "in_progress" {
			t.Fatalf("background turn: %d %s", started.Status, started.Body)
		}
		r = alice.Post("/sessions/"+session+"/compact", ``)
		servertest.MustStatus(t, r, 409)
		if code := r.JSON(t)["code"]; code != "session_busy" {
			t.Errorf("busy code = %v", code)
		}
		waitCompleted(t, alice, session, started.JSON(t)["id"].(string))
	})
}

// waitCompleted polls a response until it is final.
func waitCompleted(t *testing.T, ts *servertest.Server, session, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := ts.Get("/responses/" + id + "?sessionId=" + session)
		if st := r.JSON(t)["status"]; st != "in_progress" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("response %s still in progress", id)
}

// The figure: the endpoint's count of each turn's prompt across a
// 300-message session, with compaction and without (the default window of
// 40 messages, and the whole history). Run with -v.
func TestModelCompactionPromptTokensFigure(t *testing.T) {
	c := testutil.Stores(t)[0]
	configs := []struct {
		name string
		edit func(*config.Config)
	}{
		{"compaction (maxTokens 600, keepRecent 6)", withBudget},
		{"no compaction, historyMessages 40", nil},
		{"no compaction, historyMessages 1000", func(c *config.Config) { c.Spec.Backend.Model.HistoryMessages = 1000 }},
	}
	rows := map[string][]int{}
	for _, cfg := range configs {
		fake := fakemodel.Start(t)
		counting(fake)
		ts := servertest.Start(t, c.URL, servertest.Setup{Folder: "testdata/model", Config: func(conf *config.Config) {
			conf.Spec.Backend.Model.BaseURL = fake.URL
			if cfg.edit != nil {
				cfg.edit(conf)
			}
		}})
		runTurns(t, ts, "", 0, 150)
		summaries, summaryTokens := 0, 0
		for _, req := range fake.Requests() {
			if isSummaryRequest(req) {
				summaries, summaryTokens = summaries+1, summaryTokens+fakeTokens(req)
				continue
			}
			rows[cfg.name] = append(rows[cfg.name], fakeTokens(req))
		}
		t.Logf("%s: %d summary calls, %d prompt tokens in all", cfg.name, summaries, summaryTokens)
	}
	for _, cfg := range configs {
		tokens := rows[cfg.name]
		peak, sum, low := 0, 0, 1<<30
		var marks []string
		for i, n := range tokens {
			peak, sum = max(peak, n), sum+n
			if i >= 20 {
				low = min(low, n)
			}
			if (i+1)%15 == 0 || i == 0 {
				marks = append(marks, fmt.Sprintf("t%d=%d", i+1, n))
			}
		}
		t.Logf("%-40s mean %4d  max %4d  min after turn 20 %4d  total %6d  | %s", cfg.name, sum/max(len(tokens), 1), peak, low, sum, strings.Join(marks, " "))
	}
}

// compactingWorkers is a worker agent whose sessions a stand-in summariser
// compacts on demand (as a router's model harness would before a worker
// harness takes the session), keeping the last two messages.
type compactingWorkers struct{ runtime.Agent }

func (compactingWorkers) CompactSession(ctx context.Context, c *runtime.Compaction, _ int) (*runtime.CompactionItem, error) {
	h, err := c.History(ctx, 100)
	if err != nil || len(h.Messages) < 3 {
		return nil, err
	}
	older := h.Messages[:len(h.Messages)-2]
	return c.Save(ctx, runtime.Summary{Text: "WORKER-SUMMARY", First: older[0], Last: older[len(older)-1],
		Summarized: len(older), Reason: "request", Model: "stand-in"})
}

// Workers receive the session's compaction item in their turn line
// (compaction) and only the messages after its range as history.
func TestWorkerTurnLineCarriesCompaction(t *testing.T) {
	workers, err := backend.New(config.Backend{Exec: &config.ExecBackend{
		Command: []string{"python3", "testdata/turnline_worker.py"}, Mode: "worker", Workers: 1,
	}}, ".", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = workers.(io.Closer).Close() })
	servertest.EachStore(t, servertest.Setup{Agent: compactingWorkers{workers}}, func(t *testing.T, ts *servertest.Server) {
		session := ""
		seen := func(input string) map[string]any {
			body, _ := json.Marshal(map[string]any{"input": input, "sessionId": session})
			if session == "" {
				body, _ = json.Marshal(map[string]any{"input": input})
			}
			r := ts.Post("/responses", string(body))
			servertest.MustStatus(t, r, 200)
			env := r.JSON(t)
			session = env["sessionId"].(string)
			var out map[string]any
			if err := json.Unmarshal([]byte(env["outputText"].(string)), &out); err != nil {
				t.Fatalf("worker answered %q", env["outputText"])
			}
			return out
		}
		for i := range 3 {
			if got := seen(fmt.Sprintf("turn %d", i)); got["compaction"] != nil {
				t.Fatalf("turn %d saw a compaction before any: %v", i, got)
			}
		}
		r := ts.Post("/sessions/"+session+"/compact", ``)
		servertest.MustStatus(t, r, 200)
		item := r.JSON(t)["compaction"].(map[string]any)
		msgs := readTranscript(t, ts, session) // 6 messages, then the item
		got := seen("turn 3")
		c, _ := got["compaction"].(map[string]any)
		if c == nil || c["id"] != item["id"] || c["content"] != "WORKER-SUMMARY" || c["type"] != "compaction" {
			t.Fatalf("the worker saw compaction %v, want %v", got["compaction"], item)
		}
		want := []any{[]any{msgs[4]["id"], "user"}, []any{msgs[5]["id"], "assistant"}}
		if gotJSON, _ := json.Marshal(got["history"]); string(gotJSON) != mustJSON(want) {
			t.Errorf("the worker's history = %s, want the two messages after the range %s", gotJSON, mustJSON(want))
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
