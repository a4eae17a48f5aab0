package server_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// Per-user rate limits (server.limits.requestsPerMinute, turnsPerDay,
// concurrentResponses) counted by two replicas that share one store.

const (
	limitsAliceToken = "alice-token-0123456789"
	limitsBobToken   = "bob-token-0123456789"
)

// limitsSetup is a setup with two users and the limits set by limit.
func limitsSetup(limit func(*config.Limits)) servertest.Setup {
	return servertest.Setup{Config: func(c *config.Config) {
		c.Auth.Tokens = []config.Token{{Token: limitsAliceToken, User: "alice"}, {Token: limitsBobToken, User: "bob"}}
		limit(&c.Server.Limits)
	}}
}

// mustRateLimited checks a 429 with Retry-After within [least, most]
// seconds and a sentence that says which limit.
func mustRateLimited(t *testing.T, r servertest.Reply, least, most int, says string) {
	t.Helper()
	servertest.MustStatus(t, r, 429)
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || secs < least || secs > most {
		t.Fatalf("Retry-After %q; want %d..%d seconds", r.Header.Get("Retry-After"), least, most)
	}
	body := r.JSON(t)
	if body["code"] != runtime.CodeRateLimited || !strings.Contains(body["detail"].(string), says) {
		t.Fatalf("body %s; want code rate_limited and a sentence with %q", r.Body, says)
	}
}

func TestRequestsPerMinuteAcrossReplicas(t *testing.T) {
	setup := limitsSetup(func(l *config.Limits) { l.RequestsPerMinute = 4 })
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, rs []*servertest.Server) {
		// The count is per whole minute: keep clear of its end.
		if into := time.Now().Sub(time.Now().Truncate(time.Minute)); into > 55*time.Second {
			time.Sleep(time.Minute - into + 100*time.Millisecond)
		}
		a, b := rs[0].As(limitsAliceToken), rs[1].As(limitsAliceToken)
		for i, r := range []*servertest.Server{a, b, a, b} {
			if got := r.Get("/sessions"); got.Status != 200 {
				t.Fatalf("request %d: %d %s", i+1, got.Status, got.Body)
			}
		}
		mustRateLimited(t, a.Get("/sessions"), 1, 60, "requests this minute")
		mustRateLimited(t, b.Get("/sessions"), 1, 60, "retry in")
		servertest.MustStatus(t, rs[1].As(limitsBobToken).Get("/sessions"), 200)
		servertest.MustStatus(t, b.Get("/healthz"), 200) // probes are never limited
	})
}

func TestTurnsPerDayAcrossReplicas(t *testing.T) {
	setup := limitsSetup(func(l *config.Limits) { l.TurnsPerDay = 2 })
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, rs []*servertest.Server) {
		a, b := rs[0].As(limitsAliceToken), rs[1].As(limitsAliceToken)
		servertest.MustStatus(t, a.Post("/responses", `{"input":"one"}`), 200)
		servertest.MustStatus(t, b.Post("/responses", `{"input":"two"}`), 200)
		now := time.Now().UTC()
		midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
		untilMidnight := int(midnight.Sub(now) / time.Second)
		mustRateLimited(t, a.Post("/responses", `{"input":"three"}`), untilMidnight-5, untilMidnight+5, "turns for today")
		// A turn refused for another reason does not count.
		servertest.MustStatus(t, rs[1].As(limitsBobToken).Post("/responses", `{"input":"x","sessionId":"sess_missing"}`), 404)
		servertest.MustStatus(t, rs[1].As(limitsBobToken).Post("/responses", `{"input":"one"}`), 200)
		servertest.MustStatus(t, rs[0].As(limitsBobToken).Post("/responses", `{"input":"two"}`), 200)
	})
}

func TestConcurrentResponsesAcrossReplicas(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	setup := limitsSetup(func(l *config.Limits) { l.ConcurrentResponses = 1 })
	setup.Agent = runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		if turn.Input == "wait" {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "done"})
	})
	setup.Tune = func(o *runtime.Options) { o.Lease = 600 * time.Millisecond }
	servertest.EachStoreReplicas(t, 2, setup, func(t *testing.T, rs []*servertest.Server) {
		a, b := rs[0].As(limitsAliceToken), rs[1].As(limitsAliceToken)
		first := make(chan servertest.Reply, 1)
		go func() { first <- a.Post("/responses", `{"input":"wait"}`) }()
		<-started
		// Past two renewals of the lease, the running response still holds its slot.
		time.Sleep(time.Second)
		mustRateLimited(t, b.Post("/responses", `{"input":"now"}`), 2, 2, "responses in progress")
		servertest.MustStatus(t, rs[1].As(limitsBobToken).Post("/responses", `{"input":"now"}`), 200)
		release <- struct{}{}
		servertest.MustStatus(t, <-first, 200)
		servertest.MustStatus(t, b.Post("/responses", `{"input":"now"}`), 200) // given back at the end

		// A replica that died holding a slot: nobody renews it, and it
		// comes back once its lease ends.
		st := rs[0].Srv.Store
		if _, ok, err := st.TakeUserSlot(context.Background(), "alice", "resp_of_a_dead_replica", 1, 600*time.Millisecond, time.Now()); err != nil || !ok {
			t.Fatalf("take a slot as a replica would: %v %v", ok, err)
		}
		mustRateLimited(t, b.Post("/responses", `{"input":"now"}`), 2, 2, "responses in progress")
		deadline := time.Now().Add(5 * time.Second)
		for {
			r := b.Post("/responses", `{"input":"now"}`)
			if r.Status == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the dead replica's slot was never given back: %d %s", r.Status, r.Body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}
