package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/internal/testutil"
)

// A Redis that accepts connections and never answers must cost a call one
// bounded wait and then an error, never a hang.

// hungRedis accepts TCP connections on loopback and never answers; it
// closes them when the test ends.
func hungRedis(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "redis://" + l.Addr().String()
}

func TestOpenFailsInTimeOnAHungRedis(t *testing.T) {
	url := hungRedis(t)
	const limit = 3 * time.Second
	t.Run("store timeout", func(t *testing.T) {
		start := time.Now()
		s, err := Open(context.Background(), Options{URL: url, Timeout: 200 * time.Millisecond})
		took := time.Since(start)
		if err == nil {
			s.Close()
			t.Fatal("Open succeeded on a Redis that never answers")
		}
		if !strings.Contains(err.Error(), "store: cannot reach Redis at "+url) {
			t.Errorf("error does not name the store: %v", err)
		}
		if took > limit {
			t.Errorf("Open took %v, want < %v", took, limit)
		}
		t.Logf("Open failed after %v: %v", took, err)
	})
	t.Run("caller deadline", func(t *testing.T) {
		// A long store timeout, but the caller's deadline comes first.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		s, err := Open(ctx, Options{URL: url, Timeout: time.Minute})
		took := time.Since(start)
		if err == nil {
			s.Close()
			t.Fatal("Open succeeded on a Redis that never answers")
		}
		if took > limit {
			t.Errorf("Open took %v, want < %v (the caller's deadline bounds a call)", took, limit)
		}
	})
}

func TestURLBoundsWin(t *testing.T) {
	rdb, err := newClient("redis://127.0.0.1:1/?read_timeout=7s&max_retries=2", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	o := rdb.(*redis.Client).Options()
	if o.ReadTimeout != 7*time.Second || o.MaxRetries != 2 {
		t.Errorf("the URL's bounds were replaced: read %v, retries %d", o.ReadTimeout, o.MaxRetries)
	}
	if o.WriteTimeout != time.Second || o.DialTimeout != time.Second || o.PoolTimeout != time.Second {
		t.Errorf("bounds the URL does not set: write %v, dial %v, pool %v; want 1s", o.WriteTimeout, o.DialTimeout, o.PoolTimeout)
	}
	if !o.ContextTimeoutEnabled || o.DialerRetries != 1 {
		t.Errorf("context timeouts %v, dialer retries %d", o.ContextTimeoutEnabled, o.DialerRetries)
	}

	plain, err := newClient("redis://127.0.0.1:1/", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if o := plain.(*redis.Client).Options(); o.MaxRetries != 0 { // go-redis turns -1 into 0: no retries
		t.Errorf("MaxRetries %d, want no retries", o.MaxRetries)
	}

	sentinel, err := newClient("redis://127.0.0.1:1/?master_name=m&write_timeout=3s", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sentinel.Close()
	if o := sentinel.(*redis.Client).Options(); o.ReadTimeout != time.Second || o.WriteTimeout != 3*time.Second ||
		o.MaxRetries != 0 || !o.ContextTimeoutEnabled {
		t.Errorf("Sentinel bounds: read %v, write %v, retries %d, context %v", o.ReadTimeout, o.WriteTimeout, o.MaxRetries, o.ContextTimeoutEnabled)
	}

	cluster, err := newClient("redis://127.0.0.1:1/?addr=127.0.0.1:2", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	if o := cluster.(*redis.ClusterClient).Options(); o.ReadTimeout != time.Second || o.PoolTimeout != time.Second ||
		o.MaxRedirects != 0 || o.DialerRetries != 1 || !o.ContextTimeoutEnabled {
		t.Errorf("Cluster bounds: read %v, pool %v, redirects %d, dialer retries %d, context %v",
			o.ReadTimeout, o.PoolTimeout, o.MaxRedirects, o.DialerRetries, o.ContextTimeoutEnabled)
	}
}

// openWithHub opens a store on url with the given call bound and starts
// its hub as replica-1; control receives the hub's control messages. Both
// are closed when the test ends.
func openWithHub(t *testing.T, url string, timeout time.Duration) (*Store, *Hub, chan string) {
	t.Helper()
	s, err := Open(context.Background(), Options{URL: url, KeyPrefix: testutil.Prefix(t), Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	control := make(chan string, 64)
	hub, err := s.StartHub(context.Background(), "replica-1", func(p string) {
		select {
		case control <- p:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Close() })
	return s, hub.(*Hub), control
}

func TestPausedRedisFailsCallsInTimeAndRecovers(t *testing.T) {
	r := testutil.StartOwnRedis(t)
	const timeout = 300 * time.Millisecond
	// One socket wait; under concurrent load, a pool wait before it.
	const bound = 2*timeout + time.Second
	ctx := context.Background()
	s, hub, control := openWithHub(t, r.URL, timeout)
	if err := s.CreateSession(ctx, "u", "s1", nil, "t0"); err != nil {
		t.Fatal(err)
	}
	event := func(seq int) []store.Event {
		return []store.Event{{Sequence: seq, Type: "response.text.delta", JSON: json.RawMessage(fmt.Sprintf(`{"sequence":%d}`, seq))}}
	}
	if err := s.AppendEvents(ctx, "u", "s1", "resp_1", 1, event(0)); err != nil {
		t.Fatal(err)
	}
	notify, stop, err := hub.ListenEvents(ctx, "u", "s1", "resp_1")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	calls := []struct {
		name string
		call func(context.Context) error
	}{
		{"ping", s.Ping},
		{"get session", func(ctx context.Context) error { _, _, err := s.GetSession(ctx, "u", "s1"); return err }},
		{"create session", func(ctx context.Context) error {
			return s.CreateSession(ctx, "u", "s-"+strconv.FormatInt(time.Now().UnixNano(), 36), nil, "t1")
		}},
		{"list sessions", func(ctx context.Context) error { _, err := s.ListSessions(ctx, "u", "", 10); return err }},
		{"patch state", func(ctx context.Context) error {
			_, _, err := s.PatchState(ctx, "u", "s1", map[string]json.RawMessage{"k": json.RawMessage(`1`)}, "t1")
			return err
		}},
		{"events after", func(ctx context.Context) error { _, err := s.EventsAfter(ctx, "u", "s1", "resp_1", -1, 10); return err }},
		{"receipt", func(ctx context.Context) error { _, _, err := s.Receipt(ctx, "u", "s1", "resp_1"); return err }},
		{"publish control", func(ctx context.Context) error { return s.PublishControl(ctx, "during-pause") }},
	}

	r.Pause()
	var maxTook time.Duration
	for _, c := range calls {
		start := time.Now()
		err := c.call(ctx)
		took := time.Since(start)
		maxTook = max(maxTook, took)
		if err == nil {
			t.Errorf("%s succeeded on a paused Redis", c.name)
		}
		if took > bound {
			t.Errorf("%s took %v on a paused Redis, want < %v", c.name, took, bound)
		}
	}
	// Many at once: more than a small pool holds.
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range 32 {
		wg.Go(func() {
			c := calls[i%len(calls)]
			start := time.Now()
			err := c.call(ctx)
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			maxTook = max(maxTook, took)
			if err == nil {
				t.Errorf("concurrent %s succeeded on a paused Redis", c.name)
			}
			if took > bound {
				t.Errorf("concurrent %s took %v on a paused Redis, want < %v", c.name, took, bound)
			}
		})
	}
	wg.Wait()
	t.Logf("longest call on the paused Redis: %v (timeout %v)", maxTook, timeout)

	r.Resume()
	// The same store, not reopened, answers again.
	deadline := time.Now().Add(5 * time.Second)
	for s.Ping(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the store does not answer within 5s of SIGCONT")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range calls {
		if err := c.call(ctx); err != nil {
			t.Errorf("%s after SIGCONT: %v", c.name, err)
		}
	}
	// The hub still delivers control messages and event notifications.
	if err := s.PublishControl(ctx, "after-resume"); err != nil {
		t.Fatal(err)
	}
	wait := time.NewTimer(5 * time.Second)
	defer wait.Stop()
	for got := ""; got != "after-resume"; {
		select {
		case got = <-control: // "during-pause" may arrive first: Redis ran it on SIGCONT
		case <-wait.C:
			t.Fatal("the hub did not deliver a control message after SIGCONT")
		}
	}
	for len(notify) > 0 { // a notification from before the pause
		<-notify
	}
	if err := s.AppendEvents(ctx, "u", "s1", "resp_1", 1, event(1)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-notify:
	case <-wait.C:
		t.Fatal("the hub did not notify a follower after SIGCONT")
	}
}

func TestHubRecoversAfterRedisRestarts(t *testing.T) {
	r := testutil.StartOwnRedis(t)
	ctx := context.Background()
	s, hub, control := openWithHub(t, r.URL, 300*time.Millisecond)
	notify, stop, err := hub.ListenEvents(ctx, "u", "s1", "resp_1")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	r.Kill()
	if err := s.Ping(ctx); err == nil {
		t.Fatal("ping succeeded with Redis killed")
	}
	r.Start(t) // the same address, empty
	deadline := time.Now().Add(5 * time.Second)
	for s.Ping(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the store does not answer within 5s of the restart")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The hub resubscribes by itself: publish until a message arrives (the
	// resubscription may land just after the first publication).
	wait := time.NewTimer(10 * time.Second)
	defer wait.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for got := false; !got; {
		_ = s.PublishControl(ctx, "after-restart")
		select {
		case <-control:
			got = true
		case <-tick.C:
		case <-wait.C:
			t.Fatal("the hub did not deliver a control message after Redis restarted")
		}
	}
	for got := false; !got; {
		_ = s.AppendEvents(ctx, "u", "s1", "resp_1", 1, []store.Event{{Sequence: 0, Type: "response.created", JSON: json.RawMessage(`{}`)}})
		select {
		case <-notify:
			got = true
		case <-tick.C:
		case <-wait.C:
			t.Fatal("the hub did not notify a follower after Redis restarted")
		}
	}
}
