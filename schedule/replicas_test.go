package schedule_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/schedule"
	"github.com/harnest/harnest/server/servertest"
	"github.com/harnest/harnest/store"
)

// fires reads every fire of a schedule, oldest first, page by page.
func fires(t *testing.T, ts *servertest.Server, id string) []schedule.FireView {
	t.Helper()
	var all []schedule.FireView
	path := "/schedules/" + id + "/fires?limit=3"
	for range 1000 {
		r := ts.Get(path)
		servertest.MustStatus(t, r, http.StatusOK)
		page := decode[struct {
			Fires      []schedule.FireView
			NextCursor *string
		}](t, r)
		all = append(all, page.Fires...)
		if page.NextCursor == nil {
			break
		}
		path = "/schedules/" + id + "/fires?limit=3&cursor=" + *page.NextCursor
	}
	for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	return all
}

// waitFires waits (bounded) until the schedule has at least n fires, all
// started.
func waitFires(t *testing.T, ts *servertest.Server, id string, n int) []schedule.FireView {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		fs := fires(t, ts, id)
		started := 0
		for _, f := range fs {
			if f.Status != "pending" {
				started++
			}
		}
		if len(fs) >= n && started == len(fs) {
			return fs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d fires (%d started), want at least %d: %+v", len(fs), started, n, fs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkOnce checks that fires are numbered 1..n, due at distinct times
// one second apart (none lost, none doubled), each started with its own
// response, whose receipt any replica reads.
func checkOnce(t *testing.T, fs []schedule.FireView, replicas []*servertest.Server) {
	t.Helper()
	seen := map[string]bool{}
	for i, f := range fs {
		if f.Seq != int64(i+1) || f.Status != "started" || f.ResponseID == "" || seen[f.ResponseID] {
			t.Fatalf("fire %d: %+v (all: %+v)", i, f, fs)
		}
		seen[f.ResponseID] = true
		if i > 0 && !f.At.Equal(fs[i-1].At.Add(time.Second)) {
			t.Fatalf("fire %d due at %s after %s: a second lost or doubled (all: %+v)", f.Seq, f.At, fs[i-1].At, fs)
		}
		ts := replicas[i%len(replicas)]
		r := ts.Get("/responses/" + f.ResponseID + "?sessionId=" + f.SessionID)
		servertest.MustStatus(t, r, http.StatusOK)
	}
}

func TestTwoReplicasFireEachSecondExactlyOnce(t *testing.T) {
	setup := servertest.Setup{Schedules: func(o *schedule.Options) { o.Tick = 20 * time.Millisecond }}
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
		r := replicas[0].Post("/schedules", `{"cron":"* * * * * *","input":"tick"}`)
		servertest.MustStatus(t, r, http.StatusCreated)
		id := decode[schedule.View](t, r).ID
		time.Sleep(3500 * time.Millisecond)
		servertest.MustStatus(t, replicas[1].Post("/schedules/"+id+"/pause", ""), http.StatusOK)
		fs := waitFires(t, replicas[1], id, 3)
		checkOnce(t, fs, replicas)
		// Each fire made its own session and the turn completed there.
		for _, f := range fs {
			deadline := time.Now().Add(10 * time.Second)
			for {
				body := replicas[0].Get("/responses/" + f.ResponseID + "?sessionId=" + f.SessionID).JSON(t)
				if body["status"] == "completed" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("fire %d's response: %v", f.Seq, body)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
}

// clock is a time the test moves for every replica at once.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) jump(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// After every replica was away (the clock jumps past many fire times),
// runOnce fires once for all that were missed and skip fires none; either
// way the schedule goes on from its next time after now.
func TestMissedFiresFollowThePolicy(t *testing.T) {
	for _, policy := range []string{schedule.MissedRunOnce, schedule.MissedSkip} {
		t.Run(policy, func(t *testing.T) {
			c := &clock{}
			setup := servertest.Setup{Schedules: func(o *schedule.Options) {
				o.Tick, o.Now, o.MissedFires, o.MissedAfter = 20*time.Millisecond, c.now, policy, 2*time.Second
			}}
			servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
				r := replicas[0].Post("/schedules", `{"cron":"@every 1m","input":"hourly report"}`)
				servertest.MustStatus(t, r, http.StatusCreated)
				created := decode[schedule.View](t, r)
				c.jump(10 * time.Minute) // ten fires were due meanwhile
				deadline := time.Now().Add(10 * time.Second)
				for {
					v := decode[schedule.View](t, replicas[1].Get("/schedules/"+created.ID))
					if v.NextFireAt.After(c.now()) {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the schedule did not move on: %+v", v)
					}
					time.Sleep(20 * time.Millisecond)
				}
				time.Sleep(200 * time.Millisecond) // passes that might fire again
				fs := fires(t, replicas[0], created.ID)
				switch policy {
				case schedule.MissedRunOnce:
					if len(fs) != 1 || !fs[0].At.Equal(*created.NextFireAt) {
						t.Fatalf("runOnce: fires %+v, want one due at %s", fs, created.NextFireAt)
					}
					waitFires(t, replicas[0], created.ID, 1)
				case schedule.MissedSkip:
					if len(fs) != 0 {
						t.Fatalf("skip: fires %+v, want none", fs)
					}
				}
			})
		})
	}
}

// A fire whose claimer died is started by another replica once its hold
// lapses, and once only; one whose claimer died after starting its
// response is not started again.
func TestAFireItsClaimerDidNotStartIsStartedOnce(t *testing.T) {
	setup := servertest.Setup{Schedules: func(o *schedule.Options) { o.Tick = 20 * time.Millisecond; o.Hold = 300 * time.Millisecond }}
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, replicas []*servertest.Server) {
		r := replicas[0].Post("/schedules", `{"cron":"@yearly","input":"by hand","paused":true}`)
		servertest.MustStatus(t, r, http.StatusCreated)
		id := decode[schedule.View](t, r).ID
		st := replicas[0].Srv.Store
		sessions := []string{newSession(t, replicas[0]), newSession(t, replicas[0])}
		// A replica claims two fires and dies: the first before starting
		// it, the second after starting its response.
		for i, sess := range sessions {
			_, ok, err := st.ClaimFire(t.Context(), store.ScheduleClaim{User: runtime.AnonymousUser, ID: id, Now: time.Now(), Lease: 300 * time.Millisecond,
				Fire: &store.FireRecord{At: time.Now(), Manual: true, SessionID: sess, ResponseID: fmt.Sprintf("resp_dead%d", i)}})
			if err != nil || !ok {
				t.Fatalf("claim: %v %v", ok, err)
			}
		}
		_, err := replicas[0].Srv.Service.StartResponse(t.Context(), runtime.Anonymous, runtime.ResponseRequest{
			Input: "by hand", SessionID: sessions[1], Background: true, ResponseID: "resp_dead1"})
		if err != nil {
			t.Fatal(err)
		}
		fs := waitFires(t, replicas[1], id, 2)
		for i, f := range fs {
			if f.Status != "started" || f.ResponseID != fmt.Sprintf("resp_dead%d", i) {
				t.Fatalf("fire %d: %+v", i, f)
			}
			servertest.MustStatus(t, replicas[1].Get("/responses/"+f.ResponseID+"?sessionId="+f.SessionID), http.StatusOK)
			deadline := time.Now().Add(5 * time.Second)
			for {
				page := replicas[1].Get("/sessions/" + f.SessionID + "/responses").JSON(t)
				items, _ := page["responses"].([]any)
				if len(items) == 1 && items[0].(map[string]any)["status"] == "completed" {
					break
				}
				if len(items) > 1 || time.Now().After(deadline) {
					t.Fatalf("session of fire %d: %v", i, page)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		time.Sleep(300 * time.Millisecond) // passes that might start them again
		for i, f := range fs {
			msgs := replicas[0].Get("/sessions/" + f.SessionID + "/messages").JSON(t)
			if items, _ := msgs["messages"].([]any); len(items) != 2 {
				t.Fatalf("session of fire %d holds %d messages, want one turn's two: %v", i, len(items), msgs)
			}
		}
	})
}

func newSession(t *testing.T, ts *servertest.Server) string {
	t.Helper()
	r := ts.Post("/sessions", `{}`)
	servertest.MustStatus(t, r, http.StatusCreated)
	return r.JSON(t)["id"].(string)
}

// fastClock runs from start at speed times real time.
type fastClock struct {
	start, real time.Time
	speed       float64
}

func (c fastClock) now() time.Time {
	return c.start.Add(time.Duration(float64(time.Since(c.real)) * c.speed))
}

// Three replicas on one store live a simulated day (a clock 14400 times
// faster: an hour in a quarter second): an hourly schedule fires each of
// the day's hours exactly once.
func TestThreeReplicasFireASimulatedDayOnce(t *testing.T) {
	start := time.Date(2026, 6, 1, 0, 30, 0, 0, time.UTC)
	var clk atomic.Pointer[fastClock]
	clk.Store(&fastClock{start: start, real: time.Now(), speed: 14400})
	setup := servertest.Setup{Schedules: func(o *schedule.Options) {
		o.Tick, o.Now, o.MissedAfter = 10*time.Millisecond, func() time.Time { return clk.Load().now() }, 30*time.Minute
	}}
	servertest.EachStoreReplicas(t, 3, setup, func(t *testing.T, replicas []*servertest.Server) {
		clk.Store(&fastClock{start: start, real: time.Now(), speed: 14400})
		c := clk.Load()
		r := replicas[0].Post("/schedules", `{"cron":"0 * * * *","timeZone":"Europe/Berlin","input":"hourly"}`)
		servertest.MustStatus(t, r, http.StatusCreated)
		id := decode[schedule.View](t, r).ID
		for c.now().Before(start.Add(24 * time.Hour)) {
			time.Sleep(20 * time.Millisecond)
		}
		servertest.MustStatus(t, replicas[2].Post("/schedules/"+id+"/pause", ""), http.StatusOK)
		fs := waitFires(t, replicas[1], id, 24)
		if len(fs) != 24 {
			t.Fatalf("%d fires in a day, want 24: %+v", len(fs), fs)
		}
		seen := map[string]bool{}
		for i, f := range fs {
			if f.Seq != int64(i+1) || f.Status != "started" || seen[f.ResponseID] {
				t.Fatalf("fire %d: %+v", i, f)
			}
			seen[f.ResponseID] = true
			if want := start.Add(30*time.Minute + time.Duration(i)*time.Hour); !f.At.Equal(want) {
				t.Fatalf("fire %d due at %s, want %s", f.Seq, f.At, want)
			}
		}
	})
}

// slowReads delays each read of a schedule, so that replicas read the same
// next fire time before any of them claims it.
type slowReads struct{ store.Schedules }

func (s slowReads) GetSchedule(ctx context.Context, user, id string) (store.ScheduleRecord, bool, error) {
	rec, found, err := s.Schedules.GetSchedule(ctx, user, id)
	time.Sleep(40 * time.Millisecond) // what was read grows stale meanwhile
	return rec, found, err
}

// Three replicas that all read a due schedule before any claims it: the
// claim compares the next fire time, so one of them fires it.
func TestReplicasThatReadTogetherClaimOnce(t *testing.T) {
	setup := servertest.Setup{Schedules: func(o *schedule.Options) {
		o.Tick, o.Store = 5*time.Millisecond, slowReads{o.Store}
	}}
	servertest.EachStoreReplicas(t, 3, setup, func(t *testing.T, replicas []*servertest.Server) {
		r := replicas[0].Post("/schedules", `{"cron":"* * * * * *","input":"together"}`)
		servertest.MustStatus(t, r, http.StatusCreated)
		id := decode[schedule.View](t, r).ID
		time.Sleep(2500 * time.Millisecond)
		servertest.MustStatus(t, replicas[1].Post("/schedules/"+id+"/pause", ""), http.StatusOK)
		checkOnce(t, waitFires(t, replicas[2], id, 2), replicas)
	})
}
