package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
)

// failoverBound is how soon after a Cluster has failed over the store must
// serve the failed master's slots again (and readiness and the control
// channels must work): the cluster's own recovery takes a few seconds, and
// go-redis left alone reloads its slot map only once a minute.
const failoverBound = 10 * time.Second

// TestClusterFailoverRecovers kills (SIGKILL) a master of a real Cluster
// of three masters with a replica each, under a steady load of writes to
// sessions spread over every master. Every call must be answered, with
// success or an error (a 503 for the caller), within the store's timeout:
// none hangs. Once the cluster has promoted the replica, the sessions of
// the killed master must be written again within failoverBound; so must
// every other session, Ping must answer every time (readiness does not
// flap), and the control channels, which the killed master carried, must
// reach their replica again. The test logs the recovery times.
func TestClusterFailoverRecovers(t *testing.T) {
	cluster := testutil.StartClusterWith(t, testutil.ClusterOptions{Replicas: 1, NodeTimeout: time.Second})
	ctx := context.Background()
	s, err := Open(ctx, Options{URL: cluster.URL, KeyPrefix: testutil.Prefix(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	// The victim is the master of the control channels, so that the
	// replica's sharded subscription has to move too.
	victim := cluster.MasterFor(t, s.controlChannel())
	got := make(chan string, 64)
	hub, err := s.StartHub(ctx, "r1", func(p string) { got <- p })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Close() })
	sendAndReceive(t, s, got, "before the kill")

	// Sessions over every master, at least a few on the victim.
	const user = "u"
	var sessions []string
	onVictim := map[string]bool{}
	for i := 0; len(sessions) < 30 || len(onVictim) < 4; i++ {
		if i == 200 {
			t.Fatalf("200 sessions and only %d on the victim %s", len(onVictim), victim)
		}
		id := "s" + strconv.Itoa(i)
		if err := s.CreateSession(ctx, user, id, nil, "2026-01-01T00:00:00Z"); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, id)
		if cluster.MasterFor(t, s.sessionKeys(user, id).meta) == victim {
			onVictim[id] = true
		}
	}

	load := startFailoverLoad(s, user, sessions)
	time.Sleep(500 * time.Millisecond)
	if n := load.failures(time.Time{}); n > 0 {
		load.stop()
		t.Fatalf("%d calls failed before the kill", n)
	}

	// The victim's replica has the sessions (a replica that lags on a busy
	// machine would lose them with the kill: asynchronous replication, not
	// what this test measures).
	cluster.WaitReplicated(t, victim, 30*time.Second)
	killed := time.Now()
	cluster.Kill(t, victim)
	dead := time.Now()
	promoted := cluster.WaitFailedOver(t, victim, 30*time.Second)
	failedOver := time.Now()
	t.Logf("killed the master %s; the cluster promoted %s %s later", victim, promoted, failedOver.Sub(killed).Round(time.Millisecond))

	// The replica's control channel works again.
	controlBack := waitControl(t, s, got, failedOver.Add(failoverBound))

	// Every session is written again, and nothing fails for a while.
	deadline := failedOver.Add(failoverBound)
	for !load.settled(failedOver, time.Second) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	load.stop()

	// Readiness: Ping answers every time.
	for i := range 20 {
		if err := s.Ping(ctx); err != nil {
			t.Errorf("Ping %d of 20 after the failover: %v", i+1, err)
		}
	}

	report := load.report(killed, dead, failedOver, onVictim)
	t.Logf("calls: %d, failed: %d (all after the kill), slowest: %s", report.calls, report.failed, report.slowest.Round(time.Millisecond))
	t.Logf("the killed master's sessions written again: first %s after the failover (%s after the kill), all %s after the failover",
		after(failedOver, report.firstVictimOK), after(killed, report.firstVictimOK), after(failedOver, report.allVictimOK))
	t.Logf("every session ok from %s after the failover (%s after the kill); the control channel from %s after the failover",
		after(failedOver, report.lastFailure), after(killed, report.lastFailure), after(failedOver, controlBack))

	if report.slowest > s.timeout+time.Second {
		t.Errorf("a call took %s: more than the store's timeout %s (and a second of slack)", report.slowest, s.timeout)
	}
	for _, e := range report.wrong {
		t.Error(e)
	}
	if len(report.notBack) > 0 {
		t.Errorf("%d sessions not written since the failover, %s ago: %v", len(report.notBack), failoverBound, report.notBack)
	}
	if report.lastFailure.Sub(failedOver) > failoverBound {
		t.Errorf("calls still failed %s after the failover, want none after %s", report.lastFailure.Sub(failedOver), failoverBound)
	}
	if t.Failed() {
		return
	}

	// Then, with no load, another master fails over: readiness must say
	// ok from then on, with no failed call before to make the client
	// reload its slot map.
	second := cluster.MasterFor(t, s.sessionKeys(user, "quiet").meta)
	for i := 0; second == promoted; i++ { // the promoted master has no replica
		second = cluster.MasterFor(t, s.sessionKeys(user, "quiet"+strconv.Itoa(i)).meta)
	}
	cluster.Kill(t, second)
	cluster.WaitFailedOver(t, second, 30*time.Second)
	for i := range 20 {
		if err := s.Ping(ctx); err != nil {
			t.Errorf("Ping %d of 20 right after a quiet failover: %v", i+1, err)
		}
	}
}

// after says how long after from at was, or "never" for the zero time.
func after(from, at time.Time) string {
	if at.IsZero() {
		return "never"
	}
	return at.Sub(from).Round(time.Millisecond).String()
}

// waitControl sends control messages to r1 until one is delivered (not
// gone) and received, and returns when; the zero time once past deadline.
func waitControl(t *testing.T, s *Store, got chan string, deadline time.Time) time.Time {
	t.Helper()
	for i := 0; ; i++ {
		payload := "after the failover " + strconv.Itoa(i)
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		gone, err := s.SendControl(ctx, "r1", payload)
		cancel()
		if err == nil && !gone {
			select {
			case p := <-got:
				for p != payload { // earlier ones, counted as gone but delivered late, may come first
					p = <-got
				}
				return time.Now()
			case <-time.After(5 * time.Second):
				t.Fatalf("%q was counted as delivered but not received within 5 s", payload)
			}
		}
		if time.Now().After(deadline) {
			t.Errorf("the replica's control channel still says gone=%v err=%v, %s after the failover", gone, err, failoverBound)
			return time.Time{}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// failoverLoad writes the sessions' state in turn from a few goroutines,
// and records every call.
type failoverLoad struct {
	done chan struct{}
	wg   sync.WaitGroup

	mu    sync.Mutex
	calls []failoverCall
}

// failoverCall is one call of the load: when it ended, how long it took
// and how it ended.
type failoverCall struct {
	session    string
	start, end time.Time
	took       time.Duration
	err        error
	wrong      string // a success that read something other than what was written
}

// failoverWorkers is how many goroutines write at once; each pauses
// between calls, so that the load is steady and bounded.
const failoverWorkers = 3

func startFailoverLoad(s *Store, user string, sessions []string) *failoverLoad {
	l := &failoverLoad{done: make(chan struct{})}
	for w := range failoverWorkers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for n := 0; ; n++ {
				id := sessions[(n*failoverWorkers+w)%len(sessions)]
				value := json.RawMessage(strconv.Itoa(n*failoverWorkers + w))
				start := time.Now()
				sess, found, err := s.PatchState(context.Background(), user, id, map[string]json.RawMessage{"n": value}, start.UTC().Format(time.RFC3339Nano))
				call := failoverCall{session: id, start: start, end: time.Now(), err: err}
				call.took = call.end.Sub(start)
				if err == nil && (!found || string(sess.State["n"]) != string(value)) {
					call.wrong = fmt.Sprintf("session %s: found=%v state %s after writing n=%s", id, found, sess.State["n"], value)
				}
				l.mu.Lock()
				l.calls = append(l.calls, call)
				l.mu.Unlock()
				select {
				case <-l.done:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
	}
	return l
}

func (l *failoverLoad) stop() {
	close(l.done)
	l.wg.Wait()
}

// failures counts the calls that failed after since.
func (l *failoverLoad) failures(since time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.calls {
		if c.err != nil && c.end.After(since) {
			n++
		}
	}
	return n
}

// settled reports whether, since from, every session has been written and
// no call has failed for quiet.
func (l *failoverLoad) settled(from time.Time, quiet time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	written := map[string]bool{}
	sessions := map[string]bool{}
	var lastFailure time.Time
	for _, c := range l.calls {
		sessions[c.session] = true
		if c.err != nil {
			lastFailure = c.end
		} else if c.end.After(from) {
			written[c.session] = true
		}
	}
	return len(written) == len(sessions) && time.Since(lastFailure) >= quiet
}

// failoverReport sums up the load's calls.
type failoverReport struct {
	calls, failed int
	slowest       time.Duration
	wrong         []string
	lastFailure   time.Time // of any call; the failover time when none failed after it
	firstVictimOK time.Time // the first success on the killed master's sessions, of a call sent once it was dead
	allVictimOK   time.Time // when the last of them was written again
	notBack       []string  // sessions not written since the failover
}

func (l *failoverLoad) report(killed, dead, failedOver time.Time, onVictim map[string]bool) failoverReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := failoverReport{calls: len(l.calls), lastFailure: failedOver}
	backAt := map[string]time.Time{}
	all := map[string]bool{}
	for _, c := range l.calls {
		all[c.session] = true
		r.slowest = max(r.slowest, c.took)
		if c.wrong != "" {
			r.wrong = append(r.wrong, c.wrong)
		}
		if c.err != nil {
			r.failed++
			if c.end.Before(killed) {
				r.wrong = append(r.wrong, fmt.Sprintf("session %s failed before the kill: %v", c.session, c.err))
			}
			if c.end.After(r.lastFailure) {
				r.lastFailure = c.end
			}
			continue
		}
		if c.start.Before(dead) {
			continue
		}
		if onVictim[c.session] && (r.firstVictimOK.IsZero() || c.end.Before(r.firstVictimOK)) {
			r.firstVictimOK = c.end
		}
		if _, ok := backAt[c.session]; !ok && c.end.After(failedOver) {
			backAt[c.session] = c.end
		}
	}
	for id := range all {
		at, ok := backAt[id]
		if !ok {
			r.notBack = append(r.notBack, id)
			continue
		}
		if onVictim[id] && at.After(r.allVictimOK) {
			r.allVictimOK = at
		}
	}
	slices.Sort(r.notBack)
	return r
}
