package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// Push notifications driven by a2a-go v2's client over JSON-RPC and
// HTTP+JSON: a send with a push config, then the config methods, and the
// notifications a receiver on 127.0.0.1 gets, verified with the JWKS.

func pushClient(t *testing.T, ts *servertest.Server, binding a2a.TransportProtocol) (*a2aclient.Client, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	card, err := agentcard.DefaultResolver.Resolve(ctx, ts.URL)
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	if !card.Capabilities.PushNotifications {
		t.Fatal("the served card does not declare capabilities.pushNotifications")
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{binding}}))
	if err != nil {
		t.Fatalf("client from card: %v", err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c, ctx
}

func TestPushWithA2AGo(t *testing.T) {
	rc := testutil.NewReceiver(t)
	servertest.EachStore(t, pushServerSetup(rc), func(t *testing.T, ts *servertest.Server) {
		for _, binding := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
			t.Run(string(binding), func(t *testing.T) { pushFlow(t, ts, rc, binding) })
		}
	})
}

func pushFlow(t *testing.T, ts *servertest.Server, rc *testutil.Receiver, binding a2a.TransportProtocol) {
	c, ctx := pushClient(t, ts, binding)
	path := "/" + t.Name()
	rc.SetPlan(http.StatusInternalServerError) // the first notification is retried
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("push me")),
		Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: rc.URL(path), Token: "tok-" + string(binding),
			Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: "cred-1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("a send with a push config answers %#v, want the completed task", res)
	}
	got := rc.On(path).Wait(t, "the completed status", untilCompleted)
	if got[0].Status != 500 || got[1].Body != got[0].Body {
		t.Errorf("the notification that got a 500 was not sent again first")
	}
	var first a2a.StreamResponse
	if err := json.Unmarshal([]byte(got[1].Body), &first); err != nil {
		t.Fatalf("notification is not a StreamResponse: %v: %s", err, got[1].Body)
	}
	if tk, ok := first.Event.(*a2a.Task); !ok || tk.ID != task.ID {
		t.Errorf("the first notification is %#v, want the task", first.Event)
	}
	for i, p := range got[1:] {
		var sr a2a.StreamResponse
		if err := json.Unmarshal([]byte(p.Body), &sr); err != nil {
			t.Errorf("notification %d: %v: %s", i, err, p.Body)
		}
		if p.Header.Get("Authorization") != "Bearer cred-1" || p.Header.Get("X-A2A-Notification-Token") != "tok-"+string(binding) ||
			p.Header.Get("A2A-Notification-Token") != "tok-"+string(binding) || p.Header.Get("Content-Type") != "application/a2a+json" {
			t.Errorf("notification %d headers %v", i, p.Header)
		}
		checkSignature(t, ts, p)
	}

	// The config methods.
	stored, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
	if err != nil || len(stored) != 1 || stored[0].URL != rc.URL(path) || stored[0].ID == "" || stored[0].Auth == nil || stored[0].Auth.Scheme != "Bearer" {
		t.Fatalf("list after the send: %+v %v", stored, err)
	}
	made, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, ID: "second", URL: rc.URL(path + "/2"), Token: "t2"})
	if err != nil || made.ID != "second" || made.TaskID != task.ID || made.Token != "t2" {
		t.Fatalf("create: %+v %v", made, err)
	}
	one, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "second"})
	if err != nil || one.URL != rc.URL(path+"/2") {
		t.Fatalf("get: %+v %v", one, err)
	}
	if all, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: task.ID}); err != nil || len(all) != 2 {
		t.Fatalf("list: %d %v", len(all), err)
	}
	for range 2 { // delete is idempotent
		if err := c.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "second"}); err != nil {
			t.Fatalf("delete: %v", err)
		}
	}
	if _, err := c.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: "second"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("get a deleted config: %v", err)
	}
	if _, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: "no-such-task", URL: rc.URL(path)}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("create for an unknown task: %v", err)
	}
	if _, err := c.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: task.ID, URL: "http://169.254.169.254/latest"}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("create to the metadata service: %v", err)
	}
}

// TestPushStreamingAndOwners: a streaming send's config gets every update;
// another user sees neither the task nor its configs.
func TestPushStreamingAndOwners(t *testing.T) {
	rc := testutil.NewReceiver(t)
	h := harnessOf(servertest.Start(t, "", pushServerSetup(rc)))
	body := `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"s1","role":"ROLE_USER",` +
		`"parts":[{"text":"stream and push"}]},"configuration":{"taskPushNotificationConfig":{"id":"c1","url":"` + rc.URL("/stream") + `"}}}}`
	status, _, events := h.sse("POST", "/a2a", body, "A2A-Version", "1.0", "X-Test-User", "alice")
	if status != 200 || len(events) < 3 {
		t.Fatalf("stream: %d %v", status, events)
	}
	taskID, _ := dig(events[0], "result", "task", "id").(string)
	got := rc.On("/stream").Wait(t, "the completed status", untilCompleted)
	if len(got) != len(events) {
		t.Errorf("the stream had %d events and the receiver got %d notifications", len(events), len(got))
	}
	for i := range min(len(got), len(events)) {
		var note any
		if err := json.Unmarshal([]byte(got[i].Body), &note); err != nil || !reflect.DeepEqual(note, events[i]["result"]) {
			t.Errorf("notification %d:\n%s\nthe stream's event:\n%v", i, got[i].Body, events[i]["result"])
		}
	}
	for _, c := range []struct{ method, params string }{
		{"GetTaskPushNotificationConfig", `{"taskId":"` + taskID + `","id":"c1"}`},
		{"ListTaskPushNotificationConfigs", `{"taskId":"` + taskID + `"}`},
		{"CreateTaskPushNotificationConfig", `{"taskId":"` + taskID + `","url":"` + rc.URL("/bob") + `"}`},
		{"DeleteTaskPushNotificationConfig", `{"taskId":"` + taskID + `","id":"c1"}`},
	} {
		r := h.rpc("1.0", c.method, json.RawMessage(c.params), "X-Test-User", "bob")
		if code := dig(r.JSON(t), "error", "code"); code != float64(-32001) {
			t.Errorf("bob's %s on alice's task: %s", c.method, r.Body)
		}
	}
	if r := h.rpc("1.0", "GetTaskPushNotificationConfig", json.RawMessage(`{"taskId":"`+taskID+`","id":"c1"}`), "X-Test-User", "alice"); dig(r.JSON(t), "result", "url") != rc.URL("/stream") {
		t.Errorf("alice's config: %s", r.Body)
	}
}
