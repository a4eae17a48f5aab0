package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// TestRedisClusterFailover serves turns from a replica on a real Redis
// Cluster of three masters with a replica each, and kills (SIGKILL) a
// master under a steady load of turns, each in a new session (sessions
// over every slot). Every turn must be answered, 200 or 503, within the
// store's timeout; once the cluster has promoted the replica, turns must
// succeed again within 10 s, and /readyz must answer 200 every time.
// (Before, the dead master's slots failed for a minute after the failover
// and /readyz failed one probe in three.)
func TestRedisClusterFailover(t *testing.T) {
	const bound = 10 * time.Second
	cluster := testutil.StartClusterWith(t, testutil.ClusterOptions{Replicas: 1, NodeTimeout: time.Second})
	prefix := testutil.Prefix(t)
	ts := servertest.Start(t, cluster.URL, servertest.Setup{Prefix: prefix})
	storeTimeout := time.Duration(config.DefaultStoreTimeoutSeconds) * time.Second

	load := startTurnLoad(ts, storeTimeout+5*time.Second)
	time.Sleep(500 * time.Millisecond)

	// The run registry's master: every turn registers its run there.
	victim := cluster.MasterFor(t, prefix+"{runs}:active")
	killed := time.Now()
	cluster.Kill(t, victim)
	cluster.WaitFailedOver(t, victim, 30*time.Second)
	failedOver := time.Now()
	t.Logf("killed the master %s; the cluster failed over %s later", victim, failedOver.Sub(killed).Round(time.Millisecond))

	// Turns succeed again: none fails for a second, within the bound.
	for time.Now().Before(failedOver.Add(bound)) {
		if last := load.lastFailure(); time.Since(last) > time.Second && time.Since(failedOver) > time.Second {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	turns := load.stop()

	for i := range 20 {
		if r := ts.Get("/readyz"); r.Status != 200 {
			t.Errorf("GET /readyz %d of 20 after the failover: %d %s", i+1, r.Status, r.Body)
		}
	}

	var ok, unavailable int
	var slowest time.Duration
	lastFailure := failedOver // of the last turn that failed, when after the failover
	for _, turn := range turns {
		slowest = max(slowest, turn.took)
		switch {
		case turn.status == 200:
			ok++
		case turn.status == 503 && turn.code == "store_unavailable":
			unavailable++
			if turn.end.After(lastFailure) {
				lastFailure = turn.end
			}
			if turn.end.Before(killed) {
				t.Errorf("a turn failed before the kill: %s", turn.body)
			}
		default:
			if turn.end.After(lastFailure) {
				lastFailure = turn.end
			}
			t.Errorf("a turn answered %d %s (err %v), want 200 or 503 store_unavailable", turn.status, turn.body, turn.err)
		}
	}
	t.Logf("turns: %d answered 200, %d answered 503; slowest %s; the last 503 %s after the failover (%s after the kill)",
		ok, unavailable, slowest.Round(time.Millisecond), lastFailure.Sub(failedOver).Round(time.Millisecond), lastFailure.Sub(killed).Round(time.Millisecond))
	if slowest > storeTimeout+time.Second {
		t.Errorf("a turn took %s: more than the store's timeout %s (and a second of slack)", slowest, storeTimeout)
	}
	if lastFailure.Sub(failedOver) > bound {
		t.Errorf("turns still failed %s after the failover, want none after %s", lastFailure.Sub(failedOver), bound)
	}
}

// turnLoad posts turns from a few goroutines, each pausing between turns,
// and records every answer.
type turnLoad struct {
	done chan struct{}
	wg   sync.WaitGroup

	mu    sync.Mutex
	turns []turnAnswer
}

// turnAnswer is one turn's answer.
type turnAnswer struct {
	status     int
	code, body string
	err        error
	end        time.Time
	took       time.Duration
}

func startTurnLoad(ts *servertest.Server, timeout time.Duration) *turnLoad {
	l := &turnLoad{done: make(chan struct{})}
	client := &http.Client{Timeout: timeout}
	for w := range 3 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for n := 0; ; n++ {
				body := []byte(`{"input":"turn ` + strconv.Itoa(w) + `-` + strconv.Itoa(n) + `"}`)
				start := time.Now()
				answer := turnAnswer{}
				resp, err := client.Do(ts.Request("POST", "/responses", "application/json", body))
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					answer.status, answer.body = resp.StatusCode, string(bytes.TrimSpace(b))
					var e struct{ Code string }
					_ = json.Unmarshal(b, &e)
					answer.code = e.Code
				}
				answer.err, answer.end = err, time.Now()
				answer.took = answer.end.Sub(start)
				l.mu.Lock()
				l.turns = append(l.turns, answer)
				l.mu.Unlock()
				select {
				case <-l.done:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
	}
	return l
}

// lastFailure is when the last turn that did not answer 200 ended.
func (l *turnLoad) lastFailure() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	var last time.Time
	for _, turn := range l.turns {
		if turn.status != 200 && turn.end.After(last) {
			last = turn.end
		}
	}
	return last
}

// stop ends the load and returns every answer.
func (l *turnLoad) stop() []turnAnswer {
	close(l.done)
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.turns
}
