package conformance

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
)

// A2A 1.0 with the a2a-go v2.3.1 client, over JSON-RPC and HTTP+JSON.

func clientV2(t *testing.T, s *server, binding a2a.TransportProtocol) *a2aclient.Client {
	t.Helper()
	ctx := ctxT(t)
	card, err := agentcard.DefaultResolver.Resolve(ctx, s.URL)
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{binding}}))
	if err != nil {
		t.Fatalf("client from card: %v", err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

var bindingsV2 = []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON}

func textOf(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func TestV2SendStreamGetList(t *testing.T) {
	s := startHarnest(t, "{thinking: true}")
	for _, binding := range bindingsV2 {
		t.Run(string(binding), func(t *testing.T) {
			c, ctx := clientV2(t, s, binding), ctxT(t)
			res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
			if err != nil {
				t.Fatal(err)
			}
			msg, ok := res.(*a2a.Message)
			if !ok || textOf(msg.Parts) != "Echo: hello" || msg.ContextID == "" {
				t.Fatalf("blocking send: %#v", res)
			}

			var events []a2a.Event
			for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{
				Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("stream me please"))}) {
				if err != nil {
					t.Fatal(err)
				}
				events = append(events, ev)
			}
			task, ok := events[0].(*a2a.Task)
			if !ok || task.Status.State != a2a.TaskStateSubmitted {
				t.Fatalf("first event %#v", events[0])
			}
			var text strings.Builder
			thinking := false
			for _, ev := range events[1:] {
				switch e := ev.(type) {
				case *a2a.TaskArtifactUpdateEvent:
					text.WriteString(textOf(e.Artifact.Parts))
				case *a2a.TaskStatusUpdateEvent:
					if e.Metadata["harnest"] != nil {
						thinking = true
					}
				}
			}
			last, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
			if !ok || last.Status.State != a2a.TaskStateCompleted || text.String() != "Echo: stream me please" {
				t.Fatalf("stream ended with %#v, text %q", events[len(events)-1], text.String())
			}
			if !thinking {
				t.Error("no status update with metadata.harnest (thinking)")
			}

			one := 1
			got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID, HistoryLength: &one})
			if err != nil {
				t.Fatal(err)
			}
			if got.Status.State != a2a.TaskStateCompleted || len(got.History) != 1 || textOf(got.Artifacts[0].Parts) != "Echo: stream me please" {
				t.Fatalf("GetTask %#v", got)
			}

			list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: task.ContextID})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID || list.TotalSize != 1 || list.NextPageToken != "" {
				t.Fatalf("ListTasks %#v", list)
			}
			if len(list.Tasks[0].Artifacts) != 0 {
				t.Error("ListTasks returned artifacts without includeArtifacts")
			}
			done, err := c.ListTasks(ctx, &a2a.ListTasksRequest{Status: a2a.TaskStateCompleted, PageSize: 1, IncludeArtifacts: true})
			if err != nil || len(done.Tasks) != 1 || len(done.Tasks[0].Artifacts) != 1 {
				t.Fatalf("ListTasks by status: %v %#v", err, done)
			}

			// Errors: finished task, unknown task.
			if _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
				t.Errorf("cancel of a completed task: %v", err)
			}
			for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
				if !errors.Is(err, a2a.ErrUnsupportedOperation) {
					t.Errorf("subscribe to a completed task: %v", err)
				}
				break
			}
			if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("unknown task: %v", err)
			}
			mismatched := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("x"))
			mismatched.TaskID, mismatched.ContextID = task.ID, "another-context"
			if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: mismatched}); !errors.Is(err, a2a.ErrInvalidParams) {
				t.Errorf("mismatched context: %v", err)
			}
			finished := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("more"))
			if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: finished}); !errors.Is(err, a2a.ErrUnsupportedOperation) {
				t.Errorf("message to a finished task: %v", err)
			}
		})
	}
}

func TestV2CancelAndSubscribe(t *testing.T) {
	s := startHarnest(t, "{delayMs: 400}")
	for _, binding := range bindingsV2 {
		t.Run(string(binding), func(t *testing.T) {
			c, ctx := clientV2(t, s, binding), ctxT(t)
			res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
				Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("a b c d e f g h")),
				Config:  &a2a.SendMessageConfig{ReturnImmediately: true}})
			if err != nil {
				t.Fatal(err)
			}
			task, ok := res.(*a2a.Task)
			if !ok {
				t.Fatalf("returnImmediately gave %#v", res)
			}
			sub := make(chan []a2a.Event, 1)
			go func() {
				var evs []a2a.Event
				for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
					if err != nil {
						break
					}
					evs = append(evs, ev)
				}
				sub <- evs
			}()
			time.Sleep(300 * time.Millisecond)
			canceled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
			if err != nil {
				t.Fatal(err)
			}
			if canceled.Status.State != a2a.TaskStateCanceled {
				t.Fatalf("cancel: %#v", canceled.Status)
			}
			evs := <-sub
			if _, ok := evs[0].(*a2a.Task); !ok {
				t.Fatalf("subscription did not start with the task: %#v", evs)
			}
			last, ok := evs[len(evs)-1].(*a2a.TaskStatusUpdateEvent)
			if !ok || last.Status.State != a2a.TaskStateCanceled {
				t.Fatalf("subscription ended with %#v", evs[len(evs)-1])
			}
		})
	}
}

func TestV2InputRequiredRoundTrip(t *testing.T) {
	s := startHarnest(t, "{approval: send_email}")
	for _, binding := range bindingsV2 {
		t.Run(string(binding), func(t *testing.T) {
			c, ctx := clientV2(t, s, binding), ctxT(t)
			res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("mail bob"))})
			if err != nil {
				t.Fatal(err)
			}
			task, ok := res.(*a2a.Task)
			if !ok || task.Status.State != a2a.TaskStateInputRequired || task.Status.Message == nil {
				t.Fatalf("send: %#v", res)
			}
			answer := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("approve"))
			res, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: answer})
			if err != nil {
				t.Fatal(err)
			}
			done, ok := res.(*a2a.Task)
			if !ok || done.Status.State != a2a.TaskStateCompleted || textOf(done.Artifacts[0].Parts) != "Echo: mail bob" {
				t.Fatalf("resume: %#v", res)
			}

			// Denied, over a stream.
			var events []a2a.Event
			for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("delete all"))}) {
				if err != nil {
					t.Fatal(err)
				}
				events = append(events, ev)
			}
			waiting := events[0].(*a2a.Task)
			if last := events[len(events)-1].(*a2a.TaskStatusUpdateEvent); last.Status.State != a2a.TaskStateInputRequired {
				t.Fatalf("stream ended in %s", last.Status.State)
			}
			deny := a2a.NewMessageForTask(a2a.MessageRoleUser, waiting, a2a.NewDataPart(map[string]any{"decision": "deny"}))
			events = events[:0]
			for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: deny}) {
				if err != nil {
					t.Fatal(err)
				}
				events = append(events, ev)
			}
			if last := events[len(events)-1].(*a2a.TaskStatusUpdateEvent); last.Status.State != a2a.TaskStateRejected {
				t.Fatalf("denied stream ended in %s", last.Status.State)
			}
		})
	}
}
