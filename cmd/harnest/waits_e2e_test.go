package main

import (
	"bytes"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Waits that hold no process (#31): a turn suspended on an approval lives
// in the store, so it outlives every replica (an agent with onReplicaLoss:
// rerun): its answer, on a replica started after all the others were
// killed, runs the turn again there, which finds the approval answered.

// waitLog waits (up to limit) until h.s log (stderr) holds s.
func waitLog(t *testing.T, h *harnest, s string, limit time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(limit); !strings.Contains(h.stderr.String(), s); time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never held %q within %v:\n%s", s, limit, h.stderr.String())
		}
	}
}

// answerOnNewReplica approves on c and checks that the answer is the turn's
// completed receipt, final and the only one: a second answer is refused
// and the transcript holds the turn once.
func answerOnNewReplica(t *testing.T, c *harnest, v, action map[string]any, input string) {
	t.Helper()
	answer := c.post(t, "/approvals/"+action["id"].(string), `{"decision":"approve"}`)
	done := completed(t, answer)
	if done["outputText"] != "Echo: "+input || done["id"] != v["id"] {
		t.Fatalf("answer on the new replica %s", answer.Body)
	}
	receipt := c.get(t, receiptPath(v))
	mustStatus(t, receipt, http.StatusOK)
	if !bytes.Equal(receipt.Body, answer.Body) {
		t.Fatalf("receipt %s, want the answer %s", receipt.Body, answer.Body)
	}
	mustStatus(t, c.post(t, "/approvals/"+action["id"].(string), `{"decision":"deny"}`), http.StatusConflict)
	mustHoldTurnOnce(t, c, v["sessionId"].(string))
	time.Sleep(300 * time.Millisecond)
	if again := c.get(t, receiptPath(v)); !bytes.Equal(again.Body, answer.Body) {
		t.Fatalf("the final receipt changed: %s, was %s", again.Body, answer.Body)
	}
}

// Two approvals are pending on A when both replicas, A and B, are
// SIGKILLed. A new replica C takes both answers: one at once (C claims the
// run from the dead holder itself), one after C's sweeper parked the run
// (requires_action, held by no replica). Each answer is the turn's
// completed receipt.
func TestApprovalOutlivesEveryReplica(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "approval: send", prefixed(t))
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	v1, action1 := pendingAction(t, a.post(t, "/responses", `{"input":"first reply"}`), "human_approval")
	v2, action2 := pendingAction(t, a.post(t, "/responses", `{"input":"second reply"}`), "human_approval")
	a.kill(t)
	b.kill(t)

	c := startHarnest(t, dir, nil, "--redis-url", url)
	answerOnNewReplica(t, c, v1, action1, "first reply")

	// C's sweeper finds A's liveness lapsed and parks its suspended run.
	waitLog(t, c, "parked a suspended response", 20*time.Second)
	if r := c.get(t, receiptPath(v2)).JSON(t); r["status"] != "requires_action" {
		t.Fatalf("the parked run's receipt %v, want requires_action", r)
	}
	answerOnNewReplica(t, c, v2, action2, "second reply")
	c.mustStop(t)
}

// An approval pending when its only replica is SIGKILLed expires with no
// replica holding it: another replica's sweeper expires it and the turn
// ends as an expired approval does (denied); a late answer is refused.
func TestApprovalExpiresWithNoReplica(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "approval: send", prefixed(t))
	env := []string{"HARNEST_E2E_WAIT_TTL=5s"}
	a := startHarnest(t, dir, env, "--redis-url", url)
	v, action := pendingAction(t, a.post(t, "/responses", `{"input":"too late"}`), "human_approval")
	a.kill(t)

	c := startHarnest(t, dir, env, "--redis-url", url)
	receipt, rv := c.waitReceipt(t, v, 30*time.Second)
	if rv["status"] != "denied" {
		t.Fatalf("receipt after the expiry %s, want denied", receipt.Body)
	}
	waitLog(t, c, "wait expired with no replica holding it", 5*time.Second)
	late := c.post(t, "/approvals/"+action["id"].(string), `{"decision":"approve"}`)
	mustStatus(t, late, http.StatusConflict)
	if again := c.get(t, receiptPath(v)); !bytes.Equal(again.Body, receipt.Body) {
		t.Fatalf("the final receipt changed: %s, was %s", again.Body, receipt.Body)
	}
	c.mustStop(t)
}

// An approval is answered on B while its holder A is frozen (SIGSTOP): the
// answer reaches nobody that runs, so B's sweeper, once A's liveness
// lapsed, parks the run (fencing A) and continues it with the stored
// answer; the answering caller gets the completed receipt. Woken (SIGCONT),
// A writes nothing of the turn: the receipt never changes.
func TestApprovalAnsweredWhileItsHolderIsFrozen(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "approval: send", prefixed(t))
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	v, action := pendingAction(t, a.post(t, "/responses", `{"input":"frozen reply"}`), "human_approval")
	a.signal(syscall.SIGSTOP)
	t.Cleanup(func() { a.signal(syscall.SIGCONT) })

	answer := b.post(t, "/approvals/"+action["id"].(string), `{"decision":"approve"}`)
	done := completed(t, answer)
	if done["outputText"] != "Echo: frozen reply" {
		t.Fatalf("answer %s", answer.Body)
	}
	waitLog(t, b, "parked a suspended response", 5*time.Second)

	a.signal(syscall.SIGCONT)
	waitLog(t, a, "claimed by another replica", 15*time.Second)
	time.Sleep(500 * time.Millisecond)
	if again := b.get(t, receiptPath(v)); !bytes.Equal(again.Body, answer.Body) {
		t.Fatalf("the final receipt changed after A woke: %s, was %s", again.Body, answer.Body)
	}
	mustHoldTurnOnce(t, b, v["sessionId"].(string))
	a.mustStop(t)
	b.mustStop(t)
}
