package a2a_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// Push notifications over A2A 0.3: message/send with a
// pushNotificationConfig, the tasks/pushNotificationConfig methods, the
// /v1 HTTP+JSON routes, and notifications that carry the whole task (kind
// "task").
func TestPush03(t *testing.T) {
	rc := testutil.NewReceiver(t)
	h := harnessOf(servertest.Start(t, "", pushServerSetup(rc)))
	send := map[string]any{
		"message": map[string]any{"kind": "message", "messageId": "m03", "role": "user",
			"parts": []any{map[string]any{"kind": "text", "text": "push 0.3"}}},
		"configuration": map[string]any{"blocking": true,
			"pushNotificationConfig": map[string]any{"url": rc.URL("/v03"), "token": "tok-03",
				"authentication": map[string]any{"schemes": []any{"Bearer"}, "credentials": "c03"}}},
	}
	r := h.rpc("", "message/send", send)
	task := r.JSON(t)["result"].(map[string]any)
	taskID, _ := task["id"].(string)
	if task["kind"] != "task" || dig(task, "status", "state") != "completed" {
		t.Fatalf("message/send with a push config: %s", r.Body)
	}
	got := rc.On("/v03").Wait(t, "the completed task", testutil.DeliveredWith(`"state":"completed"`))
	for i, p := range got {
		var v map[string]any
		if err := json.Unmarshal([]byte(p.Body), &v); err != nil || v["kind"] != "task" || v["id"] != taskID {
			t.Errorf("notification %d is not the 0.3 task: %s", i, p.Body)
		}
		if p.Header.Get("X-A2A-Notification-Token") != "tok-03" || p.Header.Get("Authorization") != "Bearer c03" {
			t.Errorf("notification %d headers %v", i, p.Header)
		}
		checkSignature(t, h.Server, p)
	}

	// The config made with the send has the task's ID.
	r = h.rpc("", "tasks/pushNotificationConfig/get", map[string]any{"id": taskID})
	if v := r.JSON(t); dig(v, "result", "taskId") != taskID || dig(v, "result", "pushNotificationConfig", "id") != taskID ||
		dig(v, "result", "pushNotificationConfig", "authentication", "schemes", 0) != "Bearer" {
		t.Fatalf("get: %s", r.Body)
	}
	r = h.rpc("", "tasks/pushNotificationConfig/set", map[string]any{"taskId": taskID,
		"pushNotificationConfig": map[string]any{"id": "extra", "url": rc.URL("/v03/extra")}})
	if dig(r.JSON(t), "result", "pushNotificationConfig", "id") != "extra" {
		t.Fatalf("set: %s", r.Body)
	}
	r = h.rpc("", "tasks/pushNotificationConfig/get", map[string]any{"id": taskID, "pushNotificationConfigId": "extra"})
	if dig(r.JSON(t), "result", "pushNotificationConfig", "url") != rc.URL("/v03/extra") {
		t.Fatalf("get by id: %s", r.Body)
	}
	r = h.rpc("", "tasks/pushNotificationConfig/list", map[string]any{"id": taskID})
	if list, _ := r.JSON(t)["result"].([]any); len(list) != 2 {
		t.Fatalf("list: %s", r.Body)
	}
	r = h.rpc("", "tasks/pushNotificationConfig/delete", map[string]any{"id": taskID, "pushNotificationConfigId": "extra"})
	if v := r.JSON(t); v["error"] != nil || !strings.Contains(string(r.Body), `"result":null`) {
		t.Fatalf("delete: %s", r.Body)
	}
	pushREST(t, h, rc, taskID)
}

// pushREST drives the HTTP+JSON config routes of a task that has one
// config: 0.3 (the 0.3 proto's shapes) and 1.0 with pages.
func pushREST(t *testing.T, h *harness, rc *testutil.Receiver, taskID string) {
	base := "/rest/v1/tasks/" + taskID + "/pushNotificationConfigs"
	r := h.do("POST", base, `{"parent":"tasks/`+taskID+`","config_id":"rest","config":{"push_notification_config":{"url":"`+rc.URL("/v03/rest")+`"}}}`)
	if v := r.JSON(t); r.Status != 200 || v["name"] != "tasks/"+taskID+"/pushNotificationConfigs/rest" || dig(v, "pushNotificationConfig", "url") != rc.URL("/v03/rest") {
		t.Fatalf("REST 0.3 create: %d %s", r.Status, r.Body)
	}
	if r = h.Get(base + "/rest"); r.Status != 200 || dig(r.JSON(t), "pushNotificationConfig", "id") != "rest" {
		t.Fatalf("REST 0.3 get: %d %s", r.Status, r.Body)
	}
	if r = h.Get(base); r.Status != 200 || len(r.JSON(t)["configs"].([]any)) != 2 {
		t.Fatalf("REST 0.3 list: %d %s", r.Status, r.Body)
	}
	if r = h.Do("DELETE", base+"/rest", "", nil); r.Status != 200 {
		t.Fatalf("REST 0.3 delete: %d %s", r.Status, r.Body)
	}
	// 1.0 HTTP+JSON, paged.
	base10 := "/rest/tasks/" + taskID + "/pushNotificationConfigs"
	for _, id := range []string{"p1", "p2"} {
		if r = h.do("POST", base10, `{"id":"`+id+`","url":"`+rc.URL("/v10")+`"}`); r.Status != 200 || r.JSON(t)["id"] != id {
			t.Fatalf("REST 1.0 create: %d %s", r.Status, r.Body)
		}
	}
	page := h.Get(base10 + "?pageSize=2").JSON(t)
	next, _ := page["nextPageToken"].(string)
	rest := h.Get(base10 + "?pageSize=2&pageToken=" + next).JSON(t)
	if len(page["configs"].([]any)) != 2 || next == "" || len(rest["configs"].([]any)) != 1 || rest["nextPageToken"] != "" {
		t.Fatalf("REST 1.0 pages: %v then %v", page, rest)
	}
	if r = h.Do("PUT", base10, "application/json", nil); r.Status == 200 {
		t.Errorf("PUT on the collection: %d", r.Status)
	}
}
