package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// Schedules (#35): three replicas of one real Redis fire an every-second
// schedule; each due second fires exactly once, also when the replica
// that claimed fires is SIGKILLed mid-way, and missed fires after every
// replica was paused (SIGSTOP) follow schedules.missedFires.

type e2eFire struct {
	Seq        int64     `json:"seq"`
	At         time.Time `json:"at"`
	SessionID  string    `json:"sessionId"`
	ResponseID string    `json:"responseId"`
	Status     string    `json:"status"`
}

// scheduleFires reads every fire of a schedule, oldest first.
func scheduleFires(t *testing.T, h *harnest, id string) []e2eFire {
	t.Helper()
	var all []e2eFire
	path := "/schedules/" + id + "/fires"
	for range 100 {
		r := h.get(t, path)
		mustStatus(t, r, http.StatusOK)
		var page struct {
			Fires      []e2eFire `json:"fires"`
			NextCursor *string   `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Body, &page); err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Fires...)
		if page.NextCursor == nil {
			break
		}
		path = "/schedules/" + id + "/fires?cursor=" + *page.NextCursor
	}
	for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	return all
}

// settledFires pauses the schedule and waits (bounded) until every fire
// started and its response completed.
func settledFires(t *testing.T, h *harnest, id string) []e2eFire {
	t.Helper()
	mustStatus(t, h.post(t, "/schedules/"+id+"/pause", ""), http.StatusOK)
	deadline := time.Now().Add(30 * time.Second)
	for {
		fs := scheduleFires(t, h, id)
		done := 0
		for _, f := range fs {
			if f.Status == "started" && h.get(t, "/responses/"+f.ResponseID+"?sessionId="+f.SessionID).JSON(t)["status"] == "completed" {
				done++
			}
		}
		if done == len(fs) {
			return fs
		}
		if time.Now().After(deadline) {
			t.Fatalf("fires not settled: %+v", fs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mustBeOnce checks fires numbered 1..n with distinct responses, due at
// distinct seconds; gaps (seconds with no fire) are returned.
func mustBeOnce(t *testing.T, fs []e2eFire) (gaps []time.Duration) {
	t.Helper()
	responses := map[string]bool{}
	for i, f := range fs {
		if f.Seq != int64(i+1) || responses[f.ResponseID] {
			t.Fatalf("fire %d doubled or out of order: %+v", i, fs)
		}
		responses[f.ResponseID] = true
		if i > 0 {
			d := f.At.Sub(fs[i-1].At)
			if d < time.Second {
				t.Fatalf("fires %d and %d due %s apart: a second fired twice (%+v)", i, i+1, d, fs)
			}
			if d > time.Second {
				gaps = append(gaps, d)
			}
		}
	}
	return gaps
}

func scheduleFolder(t *testing.T, missed string) string {
	return rerunFolder(t, "", prefixed(t)+fmt.Sprintf("server:\n  schedules:\n    missedFires: %s\n    missedAfterSeconds: 1\n", missed))
}

func TestSchedulesFireOnceAcrossKilledReplicas(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := scheduleFolder(t, "runOnce")
	env := []string{"HARNEST_E2E_SCHEDULE_HOLD=1s"}
	a := startHarnest(t, dir, env, "--redis-url", url)
	b := startHarnest(t, dir, env, "--redis-url", url)
	c := startHarnest(t, dir, env, "--redis-url", url)
	r := a.post(t, "/schedules", `{"cron":"* * * * * *","input":"tick"}`)
	mustStatus(t, r, http.StatusCreated)
	id := r.JSON(t)["id"].(string)
	time.Sleep(3 * time.Second)
	a.kill(t)
	time.Sleep(4 * time.Second)
	fs := settledFires(t, b, id)
	if len(fs) < 5 {
		t.Fatalf("only %d fires in 7 s: %+v", len(fs), fs)
	}
	if gaps := mustBeOnce(t, fs); len(gaps) > 0 {
		t.Fatalf("seconds lost after the SIGKILL: gaps %v in %+v", gaps, fs)
	}
	b.mustStop(t)
	c.mustStop(t)
}

func TestSchedulesMissedWhileEveryReplicaWasPaused(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	for _, policy := range []string{"skip", "runOnce"} {
		t.Run(policy, func(t *testing.T) {
			dir := scheduleFolder(t, policy)
			env := []string{"HARNEST_E2E_SCHEDULE_HOLD=1s"}
			a := startHarnest(t, dir, env, "--redis-url", url)
			b := startHarnest(t, dir, env, "--redis-url", url)
			r := a.post(t, "/schedules", `{"cron":"* * * * * *","input":"tick"}`)
			mustStatus(t, r, http.StatusCreated)
			id := r.JSON(t)["id"].(string)
			time.Sleep(2 * time.Second)
			a.signal(syscall.SIGSTOP)
			b.signal(syscall.SIGSTOP)
			time.Sleep(4 * time.Second)
			a.signal(syscall.SIGCONT)
			b.signal(syscall.SIGCONT)
			time.Sleep(2 * time.Second)
			fs := settledFires(t, b, id)
			gaps := mustBeOnce(t, fs)
			if len(gaps) != 1 {
				t.Fatalf("%s: gaps %v, want one (the pause): %+v", policy, gaps, fs)
			}
			// runOnce: one fire ran late (its first missed second, when the
			// replicas woke); skip: none did, the missed seconds never ran.
			late := 0
			for _, f := range fs {
				msgs := b.get(t, "/sessions/"+f.SessionID+"/messages").JSON(t)["messages"].([]any)
				ran, err := time.Parse(time.RFC3339Nano, msgs[0].(map[string]any)["createdAt"].(string))
				if err != nil {
					t.Fatal(err)
				}
				if ran.Sub(f.At) >= 2*time.Second {
					late++
				}
			}
			if want := map[string]int{"skip": 0, "runOnce": 1}[policy]; late != want {
				t.Fatalf("%s: %d fires ran late, want %d: %+v", policy, late, want, fs)
			}
			t.Logf("%s: %d fires, gap %v, %d late", policy, len(fs), gaps[0], late)
			a.mustStop(t)
			b.mustStop(t)
		})
	}
}
