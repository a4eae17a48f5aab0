package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	a2a03 "github.com/a2aproject/a2a-go/a2a"
	client03 "github.com/a2aproject/a2a-go/a2aclient"
	card03 "github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

// A2A 0.3 with the a2a-go v0.3.15 client (JSON-RPC; it has no HTTP+JSON
// binding), from the served card's 0.3 fields (url, preferredTransport).

func clientV03(t *testing.T, s *server, interceptors ...client03.CallInterceptor) *client03.Client {
	t.Helper()
	ctx := ctxT(t)
	card, err := card03.DefaultResolver.Resolve(ctx, s.URL)
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	if card.ProtocolVersion != "0.3.0" || card.PreferredTransport != a2a03.TransportProtocolJSONRPC || !strings.HasSuffix(card.URL, "/a2a") {
		t.Fatalf("card 0.3 fields: %q %q %q", card.ProtocolVersion, card.PreferredTransport, card.URL)
	}
	c, err := client03.NewFromCard(ctx, card, client03.WithInterceptors(interceptors...))
	if err != nil {
		t.Fatalf("client from card: %v", err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

func text03(parts a2a03.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		if tp, ok := p.(a2a03.TextPart); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

// extHeader activates an extension the 0.3 way (X-A2A-Extensions).
type extHeader struct {
	client03.PassthroughInterceptor
	uri string
}

func (e extHeader) Before(ctx context.Context, req *client03.Request) (context.Context, error) {
	req.Meta["X-A2A-Extensions"] = []string{e.uri}
	return ctx, nil
}

func TestV03SendStreamGet(t *testing.T) {
	s := startHarnest(t, "{}")
	c, ctx := clientV03(t, s, extHeader{uri: "https://example.com/ext/unknown"}), ctxT(t)
	res, err := c.SendMessage(ctx, &a2a03.MessageSendParams{Message: a2a03.NewMessage(a2a03.MessageRoleUser, a2a03.TextPart{Text: "hello"})})
	if err != nil {
		t.Fatal(err)
	}
	msg, ok := res.(*a2a03.Message)
	if !ok || text03(msg.Parts) != "Echo: hello" || msg.Role != a2a03.MessageRoleAgent {
		t.Fatalf("blocking send: %#v", res)
	}

	var events []a2a03.Event
	for ev, err := range c.SendStreamingMessage(ctx, &a2a03.MessageSendParams{Message: a2a03.NewMessage(a2a03.MessageRoleUser, a2a03.TextPart{Text: "one two three"})}) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
	task, ok := events[0].(*a2a03.Task)
	if !ok || task.Status.State != a2a03.TaskStateSubmitted {
		t.Fatalf("first event %#v", events[0])
	}
	var text strings.Builder
	for _, ev := range events {
		if a, ok := ev.(*a2a03.TaskArtifactUpdateEvent); ok {
			text.WriteString(text03(a.Artifact.Parts))
		}
	}
	last, ok := events[len(events)-1].(*a2a03.TaskStatusUpdateEvent)
	if !ok || last.Status.State != a2a03.TaskStateCompleted || !last.Final || text.String() != "Echo: one two three" {
		t.Fatalf("stream ended with %#v, text %q", events[len(events)-1], text.String())
	}

	one := 1
	got, err := c.GetTask(ctx, &a2a03.TaskQueryParams{ID: task.ID, HistoryLength: &one})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.State != a2a03.TaskStateCompleted || len(got.History) != 1 || text03(got.Artifacts[0].Parts) != "Echo: one two three" {
		t.Fatalf("tasks/get %#v", got)
	}

	// tasks/list is not in the 0.3 spec, but this client sends it.
	list, err := c.ListTasks(ctx, &a2a03.ListTasksRequest{ContextID: task.ContextID})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID || list.TotalSize != 1 {
		t.Fatalf("tasks/list: %v %#v", err, list)
	}

	if _, err := c.CancelTask(ctx, &a2a03.TaskIDParams{ID: task.ID}); !errors.Is(err, a2a03.ErrTaskNotCancelable) {
		t.Errorf("cancel of a completed task: %v", err)
	}
	for _, err := range c.ResubscribeToTask(ctx, &a2a03.TaskIDParams{ID: task.ID}) {
		if !errors.Is(err, a2a03.ErrUnsupportedOperation) {
			t.Errorf("resubscribe to a completed task: %v", err)
		}
		break
	}
	if _, err := c.GetTask(ctx, &a2a03.TaskQueryParams{ID: "no-such-task"}); !errors.Is(err, a2a03.ErrTaskNotFound) {
		t.Errorf("unknown task: %v", err)
	}
	wrong := a2a03.NewMessageForTask(a2a03.MessageRoleUser, task, a2a03.TextPart{Text: "x"})
	wrong.ContextID = "another-context"
	if _, err := c.SendMessage(ctx, &a2a03.MessageSendParams{Message: wrong}); !errors.Is(err, a2a03.ErrInvalidParams) {
		t.Errorf("mismatched context: %v", err)
	}
}

func TestV03ResubscribeAndCancel(t *testing.T) {
	s := startHarnest(t, "{delayMs: 400}")
	c, ctx := clientV03(t, s), ctxT(t)
	blocking := false
	res, err := c.SendMessage(ctx, &a2a03.MessageSendParams{
		Message: a2a03.NewMessage(a2a03.MessageRoleUser, a2a03.TextPart{Text: "a b c d e f"}),
		Config:  &a2a03.MessageSendConfig{Blocking: &blocking}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a03.Task)
	if !ok {
		t.Fatalf("non-blocking send gave %#v", res)
	}
	sub := make(chan []a2a03.Event, 1)
	go func() {
		var evs []a2a03.Event
		for ev, err := range c.ResubscribeToTask(ctx, &a2a03.TaskIDParams{ID: task.ID}) {
			if err != nil {
				break
			}
			evs = append(evs, ev)
		}
		sub <- evs
	}()
	time.Sleep(300 * time.Millisecond)
	canceled, err := c.CancelTask(ctx, &a2a03.TaskIDParams{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if canceled.Status.State != a2a03.TaskStateCanceled {
		t.Fatalf("cancel: %#v", canceled.Status)
	}
	evs := <-sub
	if _, ok := evs[0].(*a2a03.Task); !ok {
		t.Fatalf("resubscription did not start with the task: %#v", evs)
	}
	last, ok := evs[len(evs)-1].(*a2a03.TaskStatusUpdateEvent)
	if !ok || last.Status.State != a2a03.TaskStateCanceled || !last.Final {
		t.Fatalf("resubscription ended with %#v", evs[len(evs)-1])
	}
}

func TestV03InputRequiredRoundTrip(t *testing.T) {
	s := startHarnest(t, "{clientTool: get_weather}")
	c, ctx := clientV03(t, s), ctxT(t)
	res, err := c.SendMessage(ctx, &a2a03.MessageSendParams{Message: a2a03.NewMessage(a2a03.MessageRoleUser, a2a03.TextPart{Text: "weather?"})})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a03.Task)
	if !ok || task.Status.State != a2a03.TaskStateInputRequired {
		t.Fatalf("send: %#v", res)
	}
	var request map[string]any
	for _, p := range task.Status.Message.Parts {
		if d, ok := p.(a2a03.DataPart); ok {
			request = d.Data
		}
	}
	if request["type"] != "client_tool" || request["name"] != "get_weather" {
		t.Fatalf("input-required message %#v", task.Status.Message)
	}
	answer := a2a03.NewMessageForTask(a2a03.MessageRoleUser, task, a2a03.DataPart{Data: map[string]any{"sky": "clear"}})
	res, err = c.SendMessage(ctx, &a2a03.MessageSendParams{Message: answer})
	if err != nil {
		t.Fatal(err)
	}
	done, ok := res.(*a2a03.Task)
	if !ok || done.Status.State != a2a03.TaskStateCompleted {
		t.Fatalf("resume: %#v", res)
	}
	if got := text03(done.Artifacts[0].Parts); got != `Echo: weather? (get_weather said: {"sky":"clear"})` {
		t.Fatalf("answer %q", got)
	}
}
