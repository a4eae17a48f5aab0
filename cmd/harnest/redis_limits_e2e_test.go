package main

// Two more ways a Redis refuses work, under a small load: CLIENT PAUSE (it
// holds every command for a while) and maxmemory with noeviction (it
// refuses writes with OOM). Each must cost a request at most a bounded wait
// and a clear 503 store_unavailable, no turn answered 200 may lack its
// receipt afterwards, and the server recovers by itself.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/internal/testutil"
)

// loadUntil runs JSON turns on h from two goroutines until stop is closed
// and returns what they got.
func loadUntil(h *harnest, stop <-chan struct{}) func() []timedReply {
	var (
		mu      sync.Mutex
		replies []timedReply
		wg      sync.WaitGroup
	)
	for w := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tr := h.timedDo("POST", "/responses", fmt.Sprintf(`{"input":"load %d-%d"}`, w, i))
				mu.Lock()
				replies = append(replies, tr)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	return func() []timedReply { wg.Wait(); return replies }
}

// mustBeClear checks that every reply is a 200 whose receipt matches or a
// 503 store_unavailable within limit, and returns how many were refused.
func mustBeClear(t *testing.T, h *harnest, replies []timedReply, limit time.Duration) (refused int) {
	t.Helper()
	for _, tr := range replies {
		switch {
		case tr.err != nil:
			t.Errorf("no answer: %v", tr)
		case tr.took > limit:
			t.Errorf("answered after more than %v: %v", limit, tr)
		case tr.status == http.StatusOK:
			var v map[string]any
			if json.Unmarshal(tr.body, &v) != nil {
				t.Errorf("200 body is not JSON: %v", tr)
				continue
			}
			if got := h.get(t, receiptPath(v)); got.Status != http.StatusOK || !bytes.Equal(got.Body, tr.body) {
				t.Errorf("receipt of %v: %d %s, want the same body %s", v["id"], got.Status, got.Body, tr.body)
			}
		case tr.status == http.StatusServiceUnavailable && tr.code == "store_unavailable":
			refused++
		default:
			t.Errorf("want 200 or 503 store_unavailable: %v", tr)
		}
	}
	return refused
}

func TestRedisFaultClientPause(t *testing.T) {
	t.Parallel()
	r := testutil.StartOwnRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimPrefix(r.URL, "redis://")})
	t.Cleanup(func() { rdb.Close() })
	h := startHarnest(t, agentFolder(t, "", prefixed(t)+"  redis:\n    timeoutSeconds: 1\n"), nil, "--redis-url", r.URL)
	h.completeResponse(t, `{"input":"warm up"}`)

	stop := make(chan struct{})
	collect := loadUntil(h, stop)
	time.Sleep(300 * time.Millisecond)
	if err := rdb.Do(context.Background(), "CLIENT", "PAUSE", "3000", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // the pause, and a second of recovery
	close(stop)
	replies := collect()
	if refused := mustBeClear(t, h, replies, 4*time.Second); refused == 0 {
		t.Error("no request was refused during CLIENT PAUSE: the pause was not exercised")
	}
	h.completeResponse(t, `{"input":"after the pause"}`)
	mustStatus(t, h.get(t, "/readyz"), http.StatusOK)
	h.mustStop(t)
}

func TestRedisFaultMaxmemoryNoeviction(t *testing.T) {
	t.Parallel()
	r := testutil.StartOwnRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: strings.TrimPrefix(r.URL, "redis://")})
	t.Cleanup(func() { rdb.Close() })
	h := startHarnest(t, agentFolder(t, "", prefixed(t)+"  redis:\n    timeoutSeconds: 1\n"), nil, "--redis-url", r.URL)
	_, first := h.completeResponse(t, `{"input":"before the limit"}`)
	ctx := context.Background()

	// Fill Redis to a small maxmemory with keys of its own, then refuse
	// writes.
	used, err := rdb.Info(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	var usedBytes int64
	for _, line := range strings.Split(used, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			fmt.Sscan(v, &usedBytes)
		}
	}
	if err := rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ConfigSet(ctx, "maxmemory", fmt.Sprint(usedBytes+256<<10)).Err(); err != nil {
		t.Fatal(err)
	}
	filler := strings.Repeat("x", 16<<10)
	for i := 0; ; i++ {
		if err := rdb.Set(ctx, fmt.Sprintf("filler:%d", i), filler, 0).Err(); err != nil {
			if !strings.Contains(err.Error(), "OOM") {
				t.Fatalf("filling Redis: %v", err)
			}
			break
		}
		if i > 10000 {
			t.Fatal("Redis never refused a write: maxmemory did not apply")
		}
	}

	stop := make(chan struct{})
	collect := loadUntil(h, stop)
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	replies := collect()
	if refused := mustBeClear(t, h, replies, 4*time.Second); refused == 0 {
		t.Error("no turn was refused while Redis was out of memory")
	}
	// What was stored before stays readable: reads are not refused.
	if got := h.get(t, receiptPath(first)); got.Status != http.StatusOK {
		t.Errorf("an earlier receipt while Redis is full: %d %s", got.Status, got.Body)
	}

	// Room again: turns work without a restart.
	if err := rdb.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	h.completeResponse(t, `{"input":"after the limit"}`)
	h.mustStop(t)
}
