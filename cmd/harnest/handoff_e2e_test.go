package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Deploys lose nothing (#31): a replica told to stop (SIGTERM) hands its
// running resumable background turns to the other live replicas, which
// claim them at once and run them again, instead of cancelling them when
// its grace ends; alone, it cancels them as before.

// A replica running a long background turn is stopped (SIGTERM, a grace
// shorter than the turn) while another replica is up: the turn is not
// cancelled but completes on the other replica; a follower there sees one
// unbroken stream with one retraction and one completion.
func TestSigtermHandsTurnOff(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "delayMs: 600", prefixed(t))
	b := startHarnest(t, dir, nil, "--redis-url", url)
	a := startHarnest(t, dir, nil, "--redis-url", url, "--shutdown-grace", "1s")
	ids, stream, frames := startDurable(t, a, b)
	stopped := time.Now()
	a.mustStop(t)
	var resumedAt time.Duration
	for {
		f, ok := stream.next(t, 30*time.Second)
		if !ok {
			break
		}
		if f.Event == "response.retracted" && resumedAt == 0 {
			resumedAt = time.Since(stopped)
		}
		frames = append(frames, f)
	}
	mustBeOneResumedTurnAs(t, frames, 1) // a hand-off spends no attempt
	t.Logf("SIGTERM to the first event of the resumed attempt: %v (the stopped replica exited after %v)", resumedAt.Round(time.Millisecond), a.took.Round(time.Millisecond))
	receipt, rv := b.waitReceipt(t, ids, 10*time.Second)
	if rv["status"] != "completed" || rv["outputText"] != "Echo: "+durableInput {
		t.Fatalf("receipt %s", receipt.Body)
	}
	mustHoldTurnOnce(t, b, ids["sessionId"].(string))
	if !strings.Contains(a.stderr.String(), "handed off running responses") {
		t.Fatalf("the stopped replica did not hand its turn off:\n%s", a.stderr.String())
	}
	b.mustStop(t)
}

// A replica alone (no other live replica) cancels its running turn when
// its grace ends, as before: nothing is handed off.
func TestSigtermAloneCancels(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "delayMs: 600", prefixed(t))
	a := startHarnest(t, dir, nil, "--redis-url", url, "--shutdown-grace", "1s")
	ids, stream, frames := startDurable(t, a, a)
	a.mustStop(t)
	frames = append(frames, stream.rest(t, 10*time.Second)...)
	names := eventNames(frames)
	last := frames[len(frames)-1]
	if count(names, "response.retracted") != 0 || last.Event != "response.completed" || last.Data["status"] != "cancelled" {
		t.Fatalf("events %v, last %s: want the turn cancelled", names, last.Raw)
	}
	if s := a.stderr.String(); !strings.Contains(s, "no other live replica") || strings.Contains(s, "handed off running responses") {
		t.Fatalf("the lone replica handed off:\n%s", s)
	}
	// Another replica started afterwards finds the receipt cancelled,
	// and claims nothing.
	b := startHarnest(t, dir, nil, "--redis-url", url)
	receipt, rv := b.waitReceipt(t, ids, 10*time.Second)
	if rv["status"] != "cancelled" {
		t.Fatalf("receipt %s", receipt.Body)
	}
	time.Sleep(2 * time.Second) // a sweep or two
	if again := b.get(t, receiptPath(ids)); string(again.Body) != string(receipt.Body) {
		t.Fatalf("the final receipt changed:\n%s\n%s", receipt.Body, again.Body)
	}
	b.mustStop(t)
}

// A rolling restart of three replicas under 30 long background turns
// (about 3.5 s each): each replica, just after it was given 10 turns, is
// stopped with SIGTERM and a grace shorter than a turn, and its replacement
// started and healthy before the next, so that every stop hands turns off
// while those of the earlier waves still run. No turn fails or is
// cancelled, and each completes exactly once (its receipt, one
// response.completed in its log, the turn once in its transcript). A turn
// handed off more than once uses an attempt each time, hence the larger
// attempt budget.
func TestRollingRestartLosesNoTurn(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "delayMs: 500", prefixed(t)+"  maxAttempts: 10\n")
	args := []string{"--redis-url", url, "--shutdown-grace", "1s"} // shorter than a turn: without hand-offs, cancelled
	replicas := []*harnest{startHarnest(t, dir, nil, args...), startHarnest(t, dir, nil, args...), startHarnest(t, dir, nil, args...)}
	const wave = 10
	var started []map[string]any
	handedOff := 0
	begun := time.Now()
	for i := range replicas {
		ids := make([]map[string]any, wave)
		errs := make(chan error, wave)
		var wg sync.WaitGroup
		for j := range wave {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := replicas[i].exchange(10*time.Second, "POST", "/responses", `{"input":"`+durableInput+`","background":true}`)
				if err != nil || r.Status != http.StatusOK {
					errs <- fmt.Errorf("turn %d of wave %d: %v %d %s", j, i, err, r.Status, r.Body)
					return
				}
				ids[j] = r.JSON(t)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		started = append(started, ids...)
		time.Sleep(300 * time.Millisecond) // the turns stream a while
		replicas[i].mustStop(t)
		if strings.Contains(replicas[i].stderr.String(), "handed off running responses") {
			handedOff++
		}
		replicas[i] = startHarnest(t, dir, nil, args...)
	}
	restarts := time.Since(begun)
	h := replicas[0]
	retracted, most := 0, 0
	for i, ids := range started {
		receipt, rv := h.waitReceipt(t, ids, 30*time.Second)
		if rv["status"] != "completed" || rv["outputText"] != "Echo: "+durableInput {
			t.Fatalf("turn %d: receipt %s", i, receipt.Body)
		}
		log := h.openEvents(t, eventsPath(ids["id"].(string), ids["sessionId"].(string), -1)).rest(t, 10*time.Second)
		if names := eventNames(log); count(names, "response.completed") != 1 || names[len(names)-1] != "response.completed" {
			t.Fatalf("turn %d: events %v", i, names)
		}
		n := count(eventNames(log), "response.retracted")
		retracted, most = retracted+n, max(most, n+1)
		mustHoldTurnOnce(t, h, ids["sessionId"].(string))
	}
	if handedOff != len(replicas) {
		t.Fatalf("%d of %d replicas handed turns off, want every one", handedOff, len(replicas))
	}
	t.Logf("%d turns, %d attempts withdrawn, at most %d attempts of a turn; the rolling restart took %v", len(started), retracted, most, restarts.Round(time.Millisecond))
	for _, r := range replicas {
		r.mustStop(t)
	}
}
