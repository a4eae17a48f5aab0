package uichat_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// useChat turns the door on with two users, then applies more changes.
func useChat(more ...func(*config.Config)) func(*config.Config) {
	return func(c *config.Config) {
		c.Server.UseChat = true
		c.Auth.Tokens = []config.Token{{Token: "alice-token", User: "alice"}, {Token: "bob-token", User: "bob"}}
		for _, f := range more {
			f(c)
		}
	}
}

// chatAgent answers "Echo: <input>", a word a delta (200 ms apart when the
// input says "slow"); "think" adds a thinking delta first; "tool" calls the
// client's first tool and says what it answered; "approve" asks for an
// approval, then runs a tool (tool_call and tool_result) and says so.
func chatAgent() runtime.Agent {
	return runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		answer := "Echo: " + turn.Input
		if strings.Contains(turn.Input, "think") {
			if err := emit(runtime.Event{Type: runtime.EventThinkingDelta, Delta: "Let me see."}); err != nil {
				return err
			}
		}
		if strings.Contains(turn.Input, "tool") {
			var tools []struct {
				Name string `json:"name"`
			}
			name := "getLocation"
			if json.Unmarshal(turn.ClientTools, &tools) == nil && len(tools) > 0 {
				name = tools[0].Name
			}
			said, err := turn.RequestClientTool(ctx, runtime.ClientToolRequest{Name: name, Arguments: json.RawMessage(`{"precise":true}`)})
			if err != nil {
				return err
			}
			answer += " (" + name + " said: " + string(said) + ")"
		}
		if strings.Contains(turn.Input, "approve") {
			if err := turn.RequestApproval(ctx, runtime.ApprovalRequest{Action: "send_email", Message: "Send the email?", Arguments: json.RawMessage(`{"to":"bob"}`)}); err != nil {
				return err
			}
			if err := emit(runtime.Event{Type: runtime.EventToolCall, ID: "call_1", Name: "send_email", Arguments: json.RawMessage(`{"to":"bob"}`)}); err != nil {
				return err
			}
			if err := emit(runtime.Event{Type: runtime.EventToolResult, CallID: "call_1", Name: "send_email", Output: json.RawMessage(`{"sent":true}`)}); err != nil {
				return err
			}
		}
		if strings.Contains(turn.Input, "artifact") {
			for _, e := range []runtime.Event{
				{Type: runtime.EventAgentActivity, Activity: "searching", Target: "the web"},
				{Type: runtime.EventArtifact, Artifact: &runtime.ArtifactInfo{ID: "a1", Name: "notes", Parts: []runtime.ArtifactPart{{Type: "text", Text: "one"}}}},
				{Type: runtime.EventArtifact, Artifact: &runtime.ArtifactInfo{ID: "a1", Append: true, LastChunk: true, Parts: []runtime.ArtifactPart{{Type: "text", Text: "two"}}}},
			} {
				if err := emit(e); err != nil {
					return err
				}
			}
		}
		pause := time.Duration(0)
		if strings.Contains(turn.Input, "slow") {
			pause = 200 * time.Millisecond
		}
		for i, w := range strings.SplitAfter(answer, " ") {
			if i > 0 && pause > 0 {
				select {
				case <-time.After(pause):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: w}); err != nil {
				return err
			}
		}
		return nil
	})
}

func setup(more ...func(*config.Config)) servertest.Setup {
	return servertest.Setup{Config: useChat(more...), Agent: chatAgent()}
}

// userMessage is a chat body whose newest message is the user's text.
func userMessage(chatID, text string) string {
	b, _ := json.Marshal(map[string]any{"id": chatID, "trigger": "submit-message", "messages": []any{
		map[string]any{"id": "m1", "role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}},
	}})
	return string(b)
}

// chunkStream is an open UI message stream.
type chunkStream struct {
	resp *http.Response
	sc   *bufio.Scanner
	done bool
}

// open sends a request as alice and returns the open stream (200).
func open(t *testing.T, ts *servertest.Server, method, path, body string) *chunkStream {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer alice-token")
	req.Header.Set("Content-Type", "application/json")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: status %d: %s", method, path, resp.StatusCode, b)
	}
	if resp.Header.Get("x-vercel-ai-ui-message-stream") != "v1" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("headers %v", resp.Header)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return &chunkStream{resp: resp, sc: sc}
}

// next returns the next chunk; nil after [DONE] or at the end.
func (s *chunkStream) next(t *testing.T) map[string]any {
	t.Helper()
	for !s.done && s.sc.Scan() {
		line := s.sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			s.done = true
			return nil
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk is not JSON: %q", data)
		}
		return c
	}
	return nil
}

// rest reads every chunk to [DONE] (which must come).
func (s *chunkStream) rest(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for c := s.next(t); c != nil; c = s.next(t) {
		out = append(out, c)
	}
	if !s.done {
		t.Fatalf("the stream ended without [DONE] after %v", types(out))
	}
	return out
}

// types lists the chunks' types.
func types(chunks []map[string]any) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i], _ = c["type"].(string)
	}
	return out
}

// text joins the text deltas.
func text(chunks []map[string]any) string {
	var b strings.Builder
	for _, c := range chunks {
		if c["type"] == "text-delta" {
			b.WriteString(c["delta"].(string))
		}
	}
	return b.String()
}

// find returns the first chunk of the type (failing when there is none).
func find(t *testing.T, chunks []map[string]any, typ string) map[string]any {
	t.Helper()
	for _, c := range chunks {
		if c["type"] == typ {
			return c
		}
	}
	t.Fatalf("no %s chunk in %v", typ, types(chunks))
	return nil
}

// call sends a request as the token's user and returns status and body.
func call(t *testing.T, ts *servertest.Server, token, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }
