package a2a_test

import (
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// A task this replica makes has no push configs but the one its send
// carries, so its updates read none from the store; a config another
// replica adds is still notified once the cached entry is a second old.

func TestNewTaskUpdatesReadNoPushConfigs(t *testing.T) {
	rc := testutil.NewReceiver(t)
	ts := servertest.Start(t, "", pushServerSetup(rc))
	h := harnessOf(ts)
	send := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER",` +
		`"parts":[{"text":"push me"}]},"configuration":{"taskPushNotificationConfig":{"url":"` + rc.URL("/new") + `"}}}}`
	r := h.do("POST", "/a2a", send, "A2A-Version", "1.0").JSON(t)
	if str(r, "result", "task", "status", "state") != "TASK_STATE_COMPLETED" {
		t.Fatalf("send with a push config: %v", r)
	}
	rc.On("/new").Wait(t, "the completed status", untilCompleted)
	stream := `{"jsonrpc":"2.0","id":2,"method":"SendStreamingMessage","params":{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"no push"}]}}}`
	if status, _, events := h.sse("POST", "/a2a", stream, "A2A-Version", "1.0"); status != 200 || len(events) < 3 {
		t.Fatalf("stream: %d %v", status, events)
	}
	if n := ts.Srv.A2A().PushConfigReads(); n != 0 {
		t.Errorf("the updates of new tasks read push configs %d times", n)
	}
}

func TestPushConfigFromAnotherReplicaIsNotified(t *testing.T) {
	rc := testutil.NewReceiver(t)
	s := pushServerSetup(rc)
	base := s.Config
	s.Config = func(c *config.Config) {
		base(c)
		c.Spec.Backend.Echo = &config.EchoBackend{Approval: "send_email"}
	}
	s = servertest.Shared(t, "", s)
	a, b := harnessOf(servertest.Start(t, "", s)), harnessOf(servertest.Start(t, "", s))
	// A task on a that waits for an approval; a cached its (no) configs.
	r := a.rpc("1.0", "SendMessage", map[string]any{"message": msg10("mail bob"), "configuration": map[string]any{"returnImmediately": true}}).JSON(t)
	id := str(r, "result", "task", "id")
	made := time.Now()
	for i := 0; ; i++ {
		g := a.rpc("1.0", "GetTask", map[string]any{"id": id}).JSON(t)
		if str(g, "result", "status", "state") == "TASK_STATE_INPUT_REQUIRED" {
			break
		}
		if i == 200 {
			t.Fatalf("the task does not wait for its approval: %v", g)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The config is made on b, and the approval answered on a once a's
	// entry is older than the cache's second.
	c := b.rpc("1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "from-b", "url": rc.URL("/b")}).JSON(t)
	if str(c, "result", "id") != "from-b" {
		t.Fatalf("create on b: %v", c)
	}
	time.Sleep(time.Until(made.Add(1100 * time.Millisecond)))
	ok := a.rpc("1.0", "SendMessage", map[string]any{"message": msg10("approve", "taskId", id)}).JSON(t)
	if str(ok, "result", "task", "status", "state") != "TASK_STATE_COMPLETED" {
		t.Fatalf("approve on a: %v", ok)
	}
	rc.On("/b").Wait(t, "the completed status", untilCompleted)
}
