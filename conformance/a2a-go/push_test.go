package conformance

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	a2a03 "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/outbox"
	"github.com/harnest/harnest/server/servertest"
)

// Push notifications with real clients: a2a-go v2 (JSON-RPC, HTTP+JSON)
// and v0.3 (JSON-RPC) make the configs, a receiver on 127.0.0.1 gets the
// notifications, and each one's JWT is checked with the served JWKS.

// startPushHarnest serves the echo agent with the receiver's host allowed
// for outbound deliveries and a quick outbox.
func startPushHarnest(t *testing.T, rc *testutil.Receiver) *server {
	t.Helper()
	cfg := configHead + "spec:\n  backend:\n    echo: {}\n" +
		"server:\n  outbound:\n    allowHosts: [\"" + rc.Host() + "\"]\n"
	dir := writeFolder(t, map[string]string{"config.yaml": cfg, "agent-card.yaml": agentCard})
	ts := servertest.Start(t, "", servertest.Setup{Folder: dir, PublicURL: true, Outbox: func(o *outbox.DispatcherOptions) {
		o.Poll = 20 * time.Millisecond
		o.Backoff = func(int) time.Duration { return 50 * time.Millisecond }
	}})
	return &server{URL: ts.URL}
}

// checkJWT verifies a notification's JWT with the server's JWKS.
func checkJWT(t *testing.T, s *server, n testutil.Request) {
	t.Helper()
	resp, err := http.Get(s.URL + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	testutil.VerifyPushJWT(t, b, n)
}

func TestPushV2(t *testing.T) {
	rc := testutil.NewReceiver(t)
	s := startPushHarnest(t, rc)
	for _, binding := range bindingsV2 {
		t.Run(string(binding), func(t *testing.T) {
			c, ctx := clientV2(t, s, binding), ctxT(t)
			path := "/v2/" + string(binding)
			res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("push v2")),
				Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: rc.URL(path), Token: "tok-v2"}}})
			if err != nil {
				t.Fatal(err)
			}
			task, ok := res.(*a2a.Task)
			if !ok {
				t.Fatalf("send with a push config: %#v", res)
			}
			got := rc.On(path).Wait(t, "the completed status", testutil.DeliveredWith("TASK_STATE_COMPLETED"))
			var text strings.Builder
			for i, n := range got {
				var sr a2a.StreamResponse
				if err := json.Unmarshal([]byte(n.Body), &sr); err != nil {
					t.Fatalf("notification %d is not a StreamResponse: %v", i, err)
				}
				if e, ok := sr.Event.(*a2a.TaskArtifactUpdateEvent); ok {
					text.WriteString(textOf(e.Artifact.Parts))
				}
				if n.Header.Get("A2A-Notification-Token") != "tok-v2" {
					t.Errorf("notification %d headers %v", i, n.Header)
				}
				checkJWT(t, s, n)
			}
			if _, ok := mustStream(t, got[0].Body).(*a2a.Task); !ok || text.String() != "Echo: push v2" {
				t.Errorf("notifications: first %s, text %q", got[0].Body, text.String())
			}
			if _, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, ID: "more", URL: rc.URL(path + "/more")}); err != nil {
				t.Fatal(err)
			}
			cs, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
			if err != nil || len(cs) != 2 {
				t.Fatalf("list: %v %v", cs, err)
			}
			if err := c.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "more"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "more"}); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("get a deleted config: %v", err)
			}
		})
	}
}

func mustStream(t *testing.T, body string) a2a.Event {
	var sr a2a.StreamResponse
	if err := json.Unmarshal([]byte(body), &sr); err != nil {
		t.Fatal(err)
	}
	return sr.Event
}

func TestPushV03(t *testing.T) {
	rc := testutil.NewReceiver(t)
	s := startPushHarnest(t, rc)
	c, ctx := clientV03(t, s), ctxT(t)
	blocking := true
	res, err := c.SendMessage(ctx, &a2a03.MessageSendParams{Message: a2a03.NewMessage(a2a03.MessageRoleUser, a2a03.TextPart{Text: "push 0.3"}),
		Config: &a2a03.MessageSendConfig{Blocking: &blocking, PushConfig: &a2a03.PushConfig{URL: rc.URL("/v03"), Token: "tok-03"}}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a03.Task)
	if !ok {
		t.Fatalf("send with a push config: %#v", res)
	}
	got := rc.On("/v03").Wait(t, "the completed task", testutil.DeliveredWith(`"state":"completed"`))
	for i, n := range got {
		var tk a2a03.Task
		if err := json.Unmarshal([]byte(n.Body), &tk); err != nil || tk.ID != task.ID {
			t.Errorf("notification %d is not the task: %v %s", i, err, n.Body)
		}
		if n.Header.Get("X-A2A-Notification-Token") != "tok-03" {
			t.Errorf("notification %d headers %v", i, n.Header)
		}
		checkJWT(t, s, n)
	}
	cfg, err := c.GetTaskPushConfig(ctx, &a2a03.GetTaskPushConfigParams{TaskID: task.ID})
	if err != nil || cfg.Config.URL != rc.URL("/v03") || cfg.TaskID != task.ID {
		t.Fatalf("get: %+v %v", cfg, err)
	}
	if _, err := c.SetTaskPushConfig(ctx, &a2a03.TaskPushConfig{TaskID: task.ID, Config: a2a03.PushConfig{ID: "more", URL: rc.URL("/v03/more")}}); err != nil {
		t.Fatal(err)
	}
	if cs, err := c.ListTaskPushConfig(ctx, &a2a03.ListTaskPushConfigParams{TaskID: task.ID}); err != nil || len(cs) != 2 {
		t.Fatalf("list: %v %v", cs, err)
	}
	if err := c.DeleteTaskPushConfig(ctx, &a2a03.DeleteTaskPushConfigParams{TaskID: task.ID, ConfigID: "more"}); err != nil {
		t.Fatal(err)
	}
	if cs, err := c.ListTaskPushConfig(ctx, &a2a03.ListTaskPushConfigParams{TaskID: task.ID}); err != nil || len(cs) != 1 {
		t.Fatalf("list after delete: %v %v", cs, err)
	}
}
