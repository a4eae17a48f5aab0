package conformance

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// A2A 1.0 over gRPC with a2a-go v2.3.1's gRPC client, from the served
// card, against harnest served as `harnest serve` serves it (ServeWith:
// cleartext HTTP/2 on the same port as the HTTP API).

const grpcCardToken = "tok-conformance-grpc-0123456789"

// startGRPCHarnest serves an echo agent whose card declares gRPC first;
// the card's URLs name a listener made before the server.
func startGRPCHarnest(t *testing.T, echo string) (base string) {
	t.Helper()
	return startGRPCHarnestWith(t, echo, "")
}

// startGRPCHarnestWith is startGRPCHarnest with agent-card.extended.yaml
// (none when extended is "").
func startGRPCHarnestWith(t *testing.T, echo, extended string) (base string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	card := "name: Conformance Echo\ndescription: Echoes what you say.\nversion: 1.0.0\nsupportedInterfaces:\n" +
		"  - {url: \"http://" + addr + "\", protocolBinding: GRPC, protocolVersion: \"1.0\"}\n" +
		"  - {url: \"http://" + addr + "/a2a\", protocolBinding: JSONRPC, protocolVersion: \"1.0\"}\n" +
		"capabilities:\n  streaming: true\ndefaultInputModes: [text/plain]\ndefaultOutputModes: [text/plain]\n" +
		"skills:\n  - {id: echo, name: Echo, description: Repeats the message back., tags: [echo]}\n"
	cfg := configHead + "spec:\n  backend:\n    echo: " + echo + "\n" +
		"auth:\n  tokens:\n    - {token: " + grpcCardToken + ", user: alice}\n"
	files := map[string]string{"config.yaml": cfg, "agent-card.yaml": card}
	if extended != "" {
		files["agent-card.extended.yaml"] = extended
	}
	return serveOn(t, l, writeFolder(t, files))
}

type bearerCreds string

func (b bearerCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}
func (bearerCreds) RequireTransportSecurity() bool { return false }

func grpcClient(t *testing.T, base, token string) *a2aclient.Client {
	t.Helper()
	ctx := ctxT(t)
	card, err := agentcard.DefaultResolver.Resolve(ctx, base, agentcard.WithRequestHeader("Authorization", "Bearer "+grpcCardToken))
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(bearerCreds(token)))
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2agrpc.WithGRPCTransport(opts...),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolGRPC}}))
	if err != nil {
		t.Fatalf("client from card: %v", err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

func TestGRPCSendStreamGetListCancel(t *testing.T) {
	base := startGRPCHarnest(t, "{thinking: true}")
	c, ctx := grpcClient(t, base, grpcCardToken), ctxT(t)
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
	if err != nil {
		t.Fatal(err)
	}
	if msg, ok := res.(*a2a.Message); !ok || textOf(msg.Parts) != "Echo: hello" {
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
	if !ok {
		t.Fatalf("first event %#v", events[0])
	}
	if last, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent); !ok || last.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("stream ended with %#v", events[len(events)-1])
	}
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != a2a.TaskStateCompleted || textOf(got.Artifacts[0].Parts) != "Echo: stream me please" {
		t.Fatalf("GetTask: %v %#v", err, got)
	}
	list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: task.ContextID})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID {
		t.Fatalf("ListTasks: %v %#v", err, list)
	}
	if _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
		t.Errorf("cancel of a completed task: %v", err)
	}
	for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
		if !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Errorf("subscribe to a completed task: %v", err)
		}
		break
	}
	// Push notifications are offered (push_test.go): an unknown config is not found.
	if _, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "x"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("GetTaskPushConfig: %v", err)
	}
}

func TestGRPCSubscribeAndCancelRunningTask(t *testing.T) {
	base := startGRPCHarnest(t, "{delayMs: 300}")
	c, ctx := grpcClient(t, base, grpcCardToken), ctxT(t)
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
	time.Sleep(200 * time.Millisecond)
	canceled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
	if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel: %v %#v", err, canceled)
	}
	evs := <-sub
	if len(evs) == 0 {
		t.Fatal("the subscription saw nothing")
	}
	if last, ok := evs[len(evs)-1].(*a2a.TaskStatusUpdateEvent); !ok || last.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("subscription ended with %#v", evs[len(evs)-1])
	}
}

func TestGRPCRefusedWithoutToken(t *testing.T) {
	base := startGRPCHarnest(t, "{}")
	c, ctx := grpcClient(t, base, ""), ctxT(t)
	if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))}); !errors.Is(err, a2a.ErrUnauthenticated) {
		t.Errorf("without a token: %v", err)
	}
}

// TestGRPCExtendedCard: the gRPC binding serves the extended card to an
// authenticated caller, refuses a wrong token, and says there is none
// when the folder has no agent-card.extended.yaml.
func TestGRPCExtendedCard(t *testing.T) {
	base := startGRPCHarnestWith(t, "{}", extendedCardYAML)
	card, err := grpcClient(t, base, grpcCardToken).GetExtendedAgentCard(ctxT(t), &a2a.GetExtendedAgentCardRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(card.Skills) != 2 || card.Skills[1].ID != "premium" || card.Name != "Conformance Echo" {
		t.Fatalf("extended card %q with skills %+v", card.Name, card.Skills)
	}
	if _, err := grpcClient(t, base, "not-the-token").GetExtendedAgentCard(ctxT(t), &a2a.GetExtendedAgentCardRequest{}); err == nil {
		t.Fatal("extended card with a wrong token")
	}
	plain := startGRPCHarnest(t, "{}")
	if _, err := grpcClient(t, plain, grpcCardToken).GetExtendedAgentCard(ctxT(t), &a2a.GetExtendedAgentCardRequest{}); !errors.Is(err, a2a.ErrExtendedCardNotConfigured) && !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("without an extended card: %v", err)
	}
}
