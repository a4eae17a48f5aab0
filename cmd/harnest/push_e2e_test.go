package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// TestPushWhenTheTaskHolderIsKilled: a task's replica is killed (SIGKILL)
// while the task works; no replica folds its updates any more, so the
// replica whose sweeper fails the run tells the task's push config that
// the task failed.
func TestPushWhenTheTaskHolderIsKilled(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	rc := testutil.NewReceiver(t)
	store := prefixed(t) + "  leaseSeconds: 2\nserver:\n  outbound:\n    allowHosts: [\"" + rc.Host() + "\"]\n"
	a := startHarnest(t, agentFolder(t, "delayMs: 20000", store), nil, "--redis-url", url)
	b := startHarnest(t, agentFolder(t, "", store), nil, "--redis-url", url)

	send := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"a long job"}]},` +
		`"configuration":{"returnImmediately":true,"taskPushNotificationConfig":{"url":"` + rc.URL("/hook") + `","token":"tok-k"}}}`
	r := a.post(t, "/message:send", send, "A2A-Version", "1.0")
	mustStatus(t, r, http.StatusOK)
	task, _ := r.JSON(t)["task"].(map[string]any)
	if task == nil {
		t.Fatalf("send: %s", r.Body)
	}
	taskID := task["id"].(string)
	rc.Wait(t, "the task working", testutil.DeliveredWith(taskID, "TASK_STATE_WORKING"))
	// A records that delivery as done right after the 200; were it killed
	// before that, another replica would send it again once A's claim
	// lapses (30 s: at least once), and the failure after it.
	time.Sleep(time.Second)

	a.kill(t)
	t.Cleanup(func() {
		if t.Failed() {
			for i, r := range rc.Requests() {
				t.Logf("notification %d: %d %s", i, r.Status, r.Body)
			}
		}
	})
	got := rc.Wait(t, "the failed task", testutil.DeliveredWith(taskID, "statusUpdate", "TASK_STATE_FAILED"))
	last := got[len(got)-1]
	if last.Header.Get("X-A2A-Notification-Token") != "tok-k" || last.Header.Get("A2A-Notification-Signature") == "" {
		t.Errorf("the failure's notification headers %v", last.Header)
	}
	keys := b.get(t, "/.well-known/jwks.json")
	mustStatus(t, keys, http.StatusOK)
	testutil.VerifyPushJWT(t, keys.Body, last)
	if r := b.get(t, "/tasks/"+taskID, "A2A-Version", "1.0"); !strings.Contains(string(r.Body), "TASK_STATE_FAILED") {
		t.Errorf("the task on B: %s", r.Body)
	}
	b.mustStop(t)
}
