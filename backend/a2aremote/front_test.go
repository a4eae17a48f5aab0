package a2aremote_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/backend/a2aremote"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// syncBuffer is a log sink the test reads while the server writes.
type syncBuffer = testutil.SyncBuffer

// front is a harnest server (testdata/remote) whose backend is the remote
// A2A agent at url, with 127.0.0.1 in allowHosts; edit changes the
// backend's section. Its log is in the returned buffer.
func front(t *testing.T, url string, edit func(*config.A2ABackend)) (*servertest.Server, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	ts := servertest.Start(t, "", servertest.Setup{
		Folder: "testdata/remote",
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Config: frontConfig(url, edit),
	})
	return ts, logs
}

// frontConfig points the front's a2a backend at url, with 127.0.0.1 in
// allowHosts, then applies edit.
func frontConfig(url string, edit func(*config.A2ABackend)) func(*config.Config) {
	return func(c *config.Config) {
		c.Spec.Backend.A2A.URL = url
		c.Spec.Backend.A2A.AllowHosts = []string{"127.0.0.1"}
		if edit != nil {
			edit(c.Spec.Backend.A2A)
		}
	}
}

// reply is what a JSON POST /responses answered.
type reply struct {
	HTTP       int
	ID         string `json:"id"`
	SessionID  string `json:"sessionId"`
	Status     string `json:"status"`
	OutputText string `json:"outputText"`
	Output     []struct {
		Type     string          `json:"type"`
		Activity string          `json:"activity"`
		Value    json.RawMessage `json:"value"`
	} `json:"output"`
	Code  string `json:"code"`
	Error *struct {
		Code string `json:"code"`
	} `json:"error"`
}

// code is the failure's code, from the error body or the envelope.
func (r reply) code() string {
	if r.Error != nil {
		return r.Error.Code
	}
	return r.Code
}

// ask sends one JSON turn (in session, when not empty).
func ask(t *testing.T, ts *servertest.Server, input, session string) reply {
	t.Helper()
	body := map[string]any{"input": input}
	if session != "" {
		body["sessionId"] = session
	}
	b, _ := json.Marshal(body)
	r := ts.Do("POST", "/responses", "application/json", b)
	var out reply
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, r.Body)
	}
	out.HTTP = r.Status
	if out.SessionID == "" {
		out.SessionID = r.Header.Get("Harnest-Session-Id")
	}
	if out.ID == "" {
		out.ID = r.Header.Get("Harnest-Response-Id")
	}
	return out
}

// mustAnswer fails unless the turn completed with the text.
func mustAnswer(t *testing.T, r reply, want string) {
	t.Helper()
	if r.HTTP != http.StatusOK || r.Status != "completed" || r.OutputText != want {
		t.Fatalf("turn: HTTP %d status %q text %q (code %q), want completed %q", r.HTTP, r.Status, r.OutputText, r.code(), want)
	}
}

// mustFail fails unless the turn failed with the code.
func mustFail(t *testing.T, r reply, code string) {
	t.Helper()
	if r.HTTP < 400 || r.code() != code {
		t.Fatalf("turn: HTTP %d status %q text %q code %q, want a failure %q", r.HTTP, r.Status, r.OutputText, r.code(), code)
	}
}

// streamed sends one SSE turn and returns its frames.
func streamed(t *testing.T, ts *servertest.Server, input, session string) []testutil.SSEFrame {
	t.Helper()
	body := map[string]any{"input": input, "stream": true}
	if session != "" {
		body["sessionId"] = session
	}
	b, _ := json.Marshal(body)
	frames, _ := ts.Stream("/responses", string(b))
	return frames
}

// deltas joins the text deltas of a stream, and lists its activities.
func deltas(frames []testutil.SSEFrame) (text string, activities []string, last map[string]any) {
	var b strings.Builder
	for _, f := range frames {
		switch f.Event {
		case "response.text.delta":
			s, _ := f.Data["delta"].(string)
			b.WriteString(s)
		case "response.agent_activity":
			s, _ := f.Data["activity"].(string)
			activities = append(activities, s)
		}
		last = f.Data
	}
	return b.String(), activities, last
}

// remoteState is the session's a2aRemote state.
func remoteState(t *testing.T, ts *servertest.Server, session string) (contextID, taskID string) {
	t.Helper()
	r := ts.Get("/sessions/" + session)
	var s struct {
		State map[string]struct {
			ContextID string `json:"contextId"`
			TaskID    string `json:"taskId"`
		} `json:"state"`
	}
	if err := json.Unmarshal(r.Body, &s); err != nil {
		t.Fatalf("session: %v: %s", err, r.Body)
	}
	st := s.State[a2aremote.StateKey]
	return st.ContextID, st.TaskID
}

// startStream starts an SSE turn in the background: seen is closed when
// a frame of the event type arrives, done when the stream ends; cancel
// closes it.
func startStream(t *testing.T, ts *servertest.Server, input, event string) (cancel func(), seen, done <-chan struct{}) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	b, _ := json.Marshal(map[string]any{"input": input, "stream": true})
	req := ts.Request("POST", "/responses", "application/json", b).WithContext(ctx)
	finished, arrived := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		once := sync.Once{}
		testutil.EachSSE(resp.Body, func(f testutil.SSEFrame) bool {
			if f.Event == event {
				once.Do(func() { close(arrived) })
			}
			return true
		})
	}()
	t.Cleanup(func() { stop(); <-finished })
	return stop, arrived, finished
}

// closedWithin waits for ch to be closed, or fails.
func closedWithin(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// within waits for a value on ch, or fails.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}
