package main

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"
)

// Busy sessions (#32): messages queued with onBusy enqueue on a session
// whose turn runs on a replica that is then SIGKILLed are not lost nor
// stranded: the other replica claims the turn and runs it again
// (onReplicaLoss: rerun), then the queued messages, in the order they were
// accepted; the transcript holds the three turns once each, in that order.
func TestQueueSurvivesAKilledReplica(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "delayMs: 300", prefixed(t))
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	ids, stream, _ := startDurable(t, a, b)
	sid := ids["sessionId"].(string)
	var queued []map[string]any
	for _, input := range []string{"queued one", "queued two"} {
		r := b.post(t, "/responses", fmt.Sprintf(`{"input":%q,"sessionId":%q,"onBusy":"enqueue","background":true}`, input, sid))
		mustStatus(t, r, http.StatusOK)
		v := r.JSON(t)
		if v["status"] != "queued" {
			t.Fatalf("enqueued answer %s", r.Body)
		}
		queued = append(queued, v)
	}
	a.kill(t)
	_ = stream.rest(t, 30*time.Second)
	for i, q := range append([]map[string]any{ids}, queued...) {
		deadline := time.Now().Add(30 * time.Second)
		for {
			v := b.get(t, receiptPath(q)).JSON(t)
			if v["status"] == "completed" {
				break
			}
			if v["status"] != "queued" && v["status"] != "in_progress" || time.Now().After(deadline) {
				t.Fatalf("response %d: %v", i, v)
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
	msgs := b.get(t, "/sessions/"+sid+"/messages")
	mustStatus(t, msgs, http.StatusOK)
	var got []string
	for _, m := range msgs.JSON(t)["messages"].([]any) {
		got = append(got, fmt.Sprint(m.(map[string]any)["content"]))
	}
	want := []string{durableInput, "Echo: " + durableInput, "queued one", "Echo: queued one", "queued two", "Echo: queued two"}
	if !slices.Equal(got, want) {
		t.Fatalf("transcript\n%q\nwant\n%q", got, want)
	}
	b.mustStop(t)
}
