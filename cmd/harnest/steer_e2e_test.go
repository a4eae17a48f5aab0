package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Durable steers (#32 follow-up): a steer answered 202 by one replica for
// a turn that runs on another, which is SIGKILLed before it takes the
// steer (the echo agent takes steers after each pause, 1.5 s apart), is
// not lost: it was kept in Redis under the response, and the replica that
// claims the turn and runs it again (onReplicaLoss: rerun) takes it, so
// the answer echoes it.
func TestSteerSurvivesAKilledReplica(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "delayMs: 1500", prefixed(t))
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	ids, stream, _ := startDurable(t, a, b)
	r := b.post(t, fmt.Sprintf("/responses/%s/steer?sessionId=%s", ids["id"], ids["sessionId"]), `{"input":"use the blue one"}`)
	mustStatus(t, r, http.StatusAccepted)
	a.kill(t)
	_ = stream.rest(t, 60*time.Second)
	deadline := time.Now().Add(60 * time.Second)
	for {
		v := b.get(t, receiptPath(ids)).JSON(t)
		if v["status"] == "completed" {
			if text, _ := v["outputText"].(string); !strings.Contains(text, "Echo: use the blue one") {
				t.Fatalf("the resumed turn did not take the steer: %v", v)
			}
			break
		}
		if v["status"] != "in_progress" || time.Now().After(deadline) {
			t.Fatalf("response: %v", v)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.mustStop(t)
}
