package conformance

import (
	"errors"
	"strings"
	"testing"

	a2a03 "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/harnest/harnest/server/servertest"
)

// Refusals as the a2a-go clients read them: a part of a media type the
// card does not take (ContentTypeNotSupported), and a send past the
// user's turns of the day (not an internal error).

// firstErr is the first error of a stream, or nil.
func firstErr(seq func(func(a2a.Event, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

func pdfMessage() *a2a.Message {
	return a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("read this"),
		a2a.NewFileURLPart("https://files.example/report.pdf", "application/pdf"))
}

// TestContentTypeNotSupported: the cards take text/plain only; a2a-go
// v2 (JSON-RPC, HTTP+JSON, gRPC) and v0.3.15 (JSON-RPC) get
// ContentTypeNotSupported for a PDF part, sent or streamed, and no task is
// made.
func TestContentTypeNotSupported(t *testing.T) {
	s := startHarnest(t, "{}")
	clients := map[string]*a2aclient.Client{}
	for _, binding := range bindingsV2 {
		clients[string(binding)] = clientV2(t, s, binding)
	}
	clients["GRPC"] = grpcClient(t, startGRPCHarnest(t, "{}"), grpcCardToken)
	for name, c := range clients {
		t.Run(name, func(t *testing.T) {
			ctx := ctxT(t)
			if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: pdfMessage()}); !errors.Is(err, a2a.ErrUnsupportedContentType) {
				t.Errorf("send: %v, want ContentTypeNotSupported", err)
			}
			if err := firstErr(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: pdfMessage()})); !errors.Is(err, a2a.ErrUnsupportedContentType) {
				t.Errorf("stream: %v, want ContentTypeNotSupported", err)
			}
			list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{})
			if err != nil || len(list.Tasks) != 0 {
				t.Errorf("tasks after the refusals: %v %+v", err, list)
			}
		})
	}
	t.Run("0.3 JSONRPC", func(t *testing.T) {
		c, ctx := clientV03(t, s), ctxT(t)
		msg := a2a03.NewMessage(a2a03.MessageRoleUser, a2a03.TextPart{Text: "read this"},
			a2a03.FilePart{File: a2a03.FileURI{URI: "https://files.example/report.pdf", FileMeta: a2a03.FileMeta{MimeType: "application/pdf"}}})
		if _, err := c.SendMessage(ctx, &a2a03.MessageSendParams{Message: msg}); !errors.Is(err, a2a03.ErrUnsupportedContentType) {
			t.Errorf("send: %v, want ContentTypeNotSupported", err)
		}
		for _, err := range c.SendStreamingMessage(ctx, &a2a03.MessageSendParams{Message: msg}) {
			if !errors.Is(err, a2a03.ErrUnsupportedContentType) {
				t.Errorf("stream: %v, want ContentTypeNotSupported", err)
			}
			break
		}
	})
}

// TestQuotaRefusal: past the user's turns of the day, the JSON-RPC
// clients of both versions get the server error a2a-go keeps apart from
// an internal error (-32000), and every binding says which limit it is.
// (a2a-go has no sentinel for HTTP 429 or RESOURCE_EXHAUSTED: its REST and
// gRPC clients report those as internal errors with the server's message.)
func TestQuotaRefusal(t *testing.T) {
	cfg := configHead + "spec:\n  backend:\n    echo: {}\nserver:\n  limits:\n    turnsPerDay: 1\n"
	ts := startFolder(t, writeFolder(t, map[string]string{"config.yaml": cfg, "agent-card.yaml": agentCard}))
	first := clientV2(t, ts, a2a.TransportProtocolJSONRPC)
	if _, err := first.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("the one turn"))}); err != nil {
		t.Fatal(err)
	}
	for _, binding := range bindingsV2 {
		t.Run(string(binding), func(t *testing.T) {
			_, err := clientV2(t, ts, binding).SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("again"))})
			if err == nil || !strings.Contains(err.Error(), "turns for today") {
				t.Fatalf("past the quota: %v, want the refusal's sentence", err)
			}
			if binding == a2a.TransportProtocolJSONRPC && (!errors.Is(err, a2a.ErrServerError) || errors.Is(err, a2a.ErrInternalError)) {
				t.Errorf("past the quota: %v, want a server error, not an internal error", err)
			}
		})
	}
	t.Run("0.3 JSONRPC", func(t *testing.T) {
		_, err := clientV03(t, ts).SendMessage(ctxT(t), &a2a03.MessageSendParams{Message: a2a03.NewMessage(a2a03.MessageRoleUser, a2a03.TextPart{Text: "again"})})
		if !errors.Is(err, a2a03.ErrServerError) || errors.Is(err, a2a03.ErrInternalError) {
			t.Errorf("past the quota: %v, want a server error, not an internal error", err)
		}
	})
}

// startFolder serves an agent folder as startHarnest does.
func startFolder(t *testing.T, dir string) *server {
	t.Helper()
	ts := servertest.Start(t, "", servertest.Setup{Folder: dir, PublicURL: true})
	return &server{URL: ts.URL}
}

// TestCancelOfACompletedTask: cancelling a completed task is
// TaskNotCancelable as a2a-go v2 reads it on JSON-RPC and HTTP+JSON (where
// harnest answers 409 Conflict, as the spec's table says; the client reads
// the ErrorInfo reason) and the task stays completed.
func TestCancelOfACompletedTask(t *testing.T) {
	s := startHarnest(t, "{}")
	for _, binding := range bindingsV2 {
		t.Run(string(binding), func(t *testing.T) {
			c, ctx := clientV2(t, s, binding), ctxT(t)
			var task *a2a.Task
			for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("done soon"))}) {
				if err != nil {
					t.Fatal(err)
				}
				if tk, ok := ev.(*a2a.Task); ok && task == nil {
					task = tk
				}
			}
			if task == nil {
				t.Fatal("the stream carried no task")
			}
			if _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
				t.Errorf("cancel of a completed task: %v, want TaskNotCancelable", err)
			}
			got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
			if err != nil || got.Status.State != a2a.TaskStateCompleted {
				t.Errorf("task after the cancel: %v %+v", err, got)
			}
		})
	}
}
