package main

import (
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Durable turns (#31): a background turn of a replica that is lost is
// claimed by another replica, which runs it again (onReplicaLoss: rerun)
// or fails it (fail), within about the replicas' liveness TTL (3 s); a
// frozen replica that wakes up after the claim writes nothing of the turn.

// rerunFolder is an echo agent folder with onReplicaLoss: rerun.
func rerunFolder(t *testing.T, echoOpts, extra string) string {
	t.Helper()
	dir := agentFolder(t, echoOpts, extra)
	path := dir + "/config.yaml"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(b), "\nspec:\n", "\nspec:\n  onReplicaLoss: rerun\n", 1)
	if cfg == string(b) {
		t.Fatalf("no spec: section in %s", path)
	}
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// durableInput is a turn whose echo takes several paced deltas.
const durableInput = "one two three four five six"

// startDurable starts a background turn on h and follows its events on
// follower from the start, until its first text delta has been streamed.
func startDurable(t *testing.T, h, follower *harnest) (ids map[string]any, stream *sseStream, seen []sseFrame) {
	t.Helper()
	r := h.post(t, "/responses", `{"input":"`+durableInput+`","background":true}`)
	mustStatus(t, r, http.StatusOK)
	ids = r.JSON(t)
	if ids["status"] != "in_progress" {
		t.Fatalf("background answer %s", r.Body)
	}
	stream = follower.openEvents(t, eventsPath(ids["id"].(string), ids["sessionId"].(string), -1))
	for {
		f, ok := stream.next(t, 20*time.Second)
		if !ok {
			t.Fatalf("the follow ended before a text delta: %v", eventNames(seen))
		}
		seen = append(seen, f)
		if f.Event == "response.text.delta" {
			return ids, stream, seen
		}
	}
}

// mustBeOneResumedTurn checks what a follower saw of a turn run again
// after its first attempt was lost: contiguous sequences from 0, exactly
// one response.retracted (withdrawing what the lost attempt streamed),
// then the attempt's activity (attempt 2), and exactly one
// response.completed, last.
func mustBeOneResumedTurn(t *testing.T, frames []sseFrame) {
	t.Helper()
	mustBeOneResumedTurnAs(t, frames, 2)
}

// mustBeOneResumedTurnAs is mustBeOneResumedTurn of a turn that goes on as
// the given attempt (a hand-off spends none: it goes on as attempt 1).
func mustBeOneResumedTurnAs(t *testing.T, frames []sseFrame, attempt int) {
	t.Helper()
	mustBeConsecutive(t, frames, 0)
	names := eventNames(frames)
	retracted := slices.Index(names, "response.retracted")
	if n := count(names, "response.retracted"); n != 1 || count(names, "response.completed") != 1 || names[len(names)-1] != "response.completed" {
		t.Fatalf("events %v: want one response.retracted and one response.completed, last", names)
	}
	activity := frames[retracted+1]
	if activity.Event != "response.agent_activity" || activity.Data["activity"] != "attempt" || activity.Data["code"] != strconv.Itoa(attempt) {
		t.Fatalf("after the retraction: %s", activity.Raw)
	}
	r, _ := frames[retracted].Data["retracted"].(map[string]any)
	if r["fromSequence"] != float64(1) || r["toSequence"] != float64(retracted-1) || r["attempt"] != float64(attempt) || !strings.HasPrefix(r["text"].(string), "Echo:") {
		t.Fatalf("retraction %s", frames[retracted].Raw)
	}
	if status := frames[len(frames)-1].Data["status"]; status != "completed" {
		t.Fatalf("last event %s", frames[len(frames)-1].Raw)
	}
}

func count(names []string, name string) int {
	n := 0
	for _, x := range names {
		if x == name {
			n++
		}
	}
	return n
}

// mustHoldTurnOnce checks the session's transcript: the turn's input and
// its answer, once.
func mustHoldTurnOnce(t *testing.T, h *harnest, sid string) {
	t.Helper()
	msgs := h.get(t, "/sessions/"+sid+"/messages")
	mustStatus(t, msgs, http.StatusOK)
	if list, _ := msgs.JSON(t)["messages"].([]any); len(list) != 2 {
		t.Fatalf("transcript %s: want the turn once", msgs.Body)
	}
}

// A replica running a background turn is SIGKILLed mid-run: another
// replica claims the turn within about the liveness TTL and runs it again;
// a follower on that replica sees one unbroken stream and the receipt and
// transcript hold the turn once. Repeated to report the time from SIGKILL
// to the first event of the resumed attempt (HARNEST_KILL_ROUNDS, default
// 3).
func TestKilledReplicaTurnContinuesElsewhere(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "delayMs: 600", prefixed(t))
	b := startHarnest(t, dir, nil, "--redis-url", url)
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("HARNEST_KILL_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	var took []time.Duration
	for range rounds {
		a := startHarnest(t, dir, nil, "--redis-url", url)
		ids, stream, frames := startDurable(t, a, b)
		a.kill(t)
		killed := time.Now()
		var resumedAt time.Duration
		for {
			f, ok := stream.next(t, 30*time.Second)
			if !ok {
				break
			}
			if f.Event == "response.retracted" && resumedAt == 0 {
				resumedAt = time.Since(killed)
			}
			frames = append(frames, f)
		}
		mustBeOneResumedTurn(t, frames)
		took = append(took, resumedAt)
		receipt, rv := b.waitReceipt(t, ids, 10*time.Second)
		if rv["status"] != "completed" || rv["outputText"] != "Echo: "+durableInput {
			t.Fatalf("receipt %s", receipt.Body)
		}
		mustHoldTurnOnce(t, b, ids["sessionId"].(string))
	}
	slices.Sort(took)
	t.Logf("SIGKILL to the first event of the resumed attempt over %d kills: p50 %v, p95 %v, max %v, all %v (lease 30 s, liveness 3 s; the lease path failed the turn after 46 s)",
		len(took), took[len(took)/2].Round(time.Millisecond), took[(len(took)*95+99)/100-1].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond), took)
	b.mustStop(t)
}

// A replica frozen (SIGSTOP) past its liveness loses its turn to another
// replica, which completes it; woken (SIGCONT), the frozen replica writes
// nothing of the turn: the final receipt never changes, and no event or
// transcript message of its attempt lands after the claim.
func TestFrozenReplicaIsFenced(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "delayMs: 600", prefixed(t))
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	ids, stream, frames := startDurable(t, a, b)
	a.signal(syscall.SIGSTOP)
	t.Cleanup(func() { a.signal(syscall.SIGCONT) })
	frames = append(frames, stream.rest(t, 30*time.Second)...)
	mustBeOneResumedTurn(t, frames)
	final, rv := b.waitReceipt(t, ids, 10*time.Second)
	if rv["status"] != "completed" {
		t.Fatalf("receipt %s", final.Body)
	}

	a.signal(syscall.SIGCONT)
	// The woken attempt had deltas left to stream every 600 ms: it writes
	// them, is refused (fenced) and stops, and its final step is refused
	// too, which it logs.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(a.stderr.String(), "claimed by another replica"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the woken replica never met the claim:\n%s", a.stderr.String())
		}
	}
	if got := a.get(t, receiptPath(ids)); string(got.Body) != string(final.Body) {
		t.Fatalf("the final receipt changed:\n%s\n%s", final.Body, got.Body)
	}
	if got := b.get(t, receiptPath(ids)); string(got.Body) != string(final.Body) {
		t.Fatalf("the final receipt changed:\n%s\n%s", final.Body, got.Body)
	}
	replay := b.openEvents(t, eventsPath(ids["id"].(string), ids["sessionId"].(string), -1)).rest(t, 10*time.Second)
	if len(replay) != len(frames) {
		t.Fatalf("the log holds %v after the frozen replica woke, the follower saw %v", eventNames(replay), eventNames(frames))
	}
	for i := range replay {
		if replay[i].Raw != frames[i].Raw {
			t.Fatalf("event %d changed:\n%s\n%s", i, frames[i].Raw, replay[i].Raw)
		}
	}
	mustHoldTurnOnce(t, b, ids["sessionId"].(string))
	a.mustStop(t)
	b.mustStop(t)
}

// Past the attempt budget (store.maxAttempts, here 1: the first run only)
// a lost replica's turn fails with replica_lost, its receipt saying how
// many attempts ran, however its agent is configured.
func TestKilledReplicaTurnPastTheAttemptBudget(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "delayMs: 600", prefixed(t)+"  maxAttempts: 1\n")
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)
	ids, stream, _ := startDurable(t, a, b)
	a.kill(t)
	frames := stream.rest(t, 30*time.Second)
	if names := eventNames(frames); count(names, "response.retracted") != 0 || len(names) == 0 || names[len(names)-1] != "error" {
		t.Fatalf("events after the kill %v, want the log to end with an error", names)
	}
	receipt, rv := b.waitReceipt(t, ids, 10*time.Second)
	errObj, _ := rv["error"].(map[string]any)
	if rv["status"] != "failed" || errorCode(rv) != "replica_lost" || errObj["attempts"] != float64(1) {
		t.Fatalf("receipt %s", receipt.Body)
	}
	b.mustStop(t)
}
