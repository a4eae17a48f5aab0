package runtime

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/store/redisstore"
	"github.com/harnest/harnest/store/stores"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// Regression tests for faults found under load: each runs on the embedded
// store and on a real redis-server, with replicas sharing one store.

// replicas starts n services on one store (one key prefix), each with its
// own connection to it when the store is a real Redis, as separate
// processes would have. They are shut down when the test ends.
func replicas(t *testing.T, c testutil.StoreCase, n int, agent Agent, configure func(i int, o *Options)) []*Service {
	t.Helper()
	prefix := testutil.Prefix(t)
	var shared store.Store
	out := make([]*Service, n)
	for i := range out {
		st := shared
		if st == nil {
			var err error
			st, err = stores.Open(context.Background(), stores.Options{URL: c.URL, KeyPrefix: prefix})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			if c.URL == "" {
				shared = st // one embedded store serves every replica
			}
		}
		o := Options{Store: st, Agent: agent, SweepInterval: 50 * time.Millisecond}
		if configure != nil {
			configure(i, &o)
		}
		s := New(o)
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.Shutdown(ctx)
		})
		out[i] = s
	}
	return out
}

// sleepAgent answers after d, or stops when cancelled.
func sleepAgent(d time.Duration) Agent {
	return AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
		return emit(Event{Type: EventTextDelta, Delta: "done: " + turn.Input})
	})
}

// A background turn that waits for a run slot longer than the lease keeps
// its session: no replica sweeps it, a second turn on its session is
// refused the whole time, and its receipt never changes once final.
func TestQueuedTurnKeepsItsLease(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			const lease = 900 * time.Millisecond
			svcs := replicas(t, c, 2, sleepAgent(3*lease), func(i int, o *Options) {
				o.Lease, o.MaxConcurrent = lease, 1
			})
			a, b := svcs[0], svcs[1]
			ctx := context.Background()
			first, err := a.StartResponse(ctx, testUser, ResponseRequest{Input: "first", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			queued, err := a.StartResponse(ctx, testUser, ResponseRequest{Input: "queued", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			var final []byte
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				body, err := b.GetResponse(ctx, testUser, queued.SessionID, queued.ID)
				if err != nil {
					t.Fatal(err)
				}
				if final != nil && string(body) != string(final) {
					t.Fatalf("a final receipt changed:\nfrom %s\nto   %s", final, body)
				}
				if final == nil && isTerminal(body) {
					final = body
				}
				if final == nil {
					// Still queued or running: the session is held.
					intruder, err := b.StartResponse(ctx, testUser, ResponseRequest{Input: "intruder", SessionID: queued.SessionID, Background: true})
					if err == nil {
						intruder.Cancel()
						// Taken only if the queued turn ended just after the
						// read above, which freed its session.
						if now, _ := b.GetResponse(ctx, testUser, queued.SessionID, queued.ID); !isTerminal(now) {
							t.Fatalf("a second turn was accepted on a session whose turn is still %s", now)
						}
						waitDone(t, intruder)
					} else if AsError(err).Code != "session_busy" {
						t.Fatalf("a second turn on a held session: %v, want session_busy", err)
					}
				}
				select {
				case <-queued.Done():
					if final != nil {
						deadline = time.Time{} // one more look after the end, then stop
					}
				default:
				}
				time.Sleep(50 * time.Millisecond)
			}
			waitDone(t, first)
			if env := receipt(t, b, queued); env.Status != StatusCompleted {
				t.Fatalf("queued turn ended %s %+v, want completed", env.Status, env.Error)
			}
			page, err := b.Messages(ctx, testUser, queued.SessionID, "", 10)
			if err != nil || len(page.Messages) != 2 {
				t.Fatalf("transcript of the queued turn: %d messages, %v; want 2", len(page.Messages), err)
			}
		})
	}
}

// A slot that frees goes to the user with the fewest running turns: one
// user's many queued turns do not make another user's one turn wait for
// them.
func TestOneUserCannotStarveAnother(t *testing.T) {
	var mu sync.Mutex
	var order []string
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		mu.Lock()
		order = append(order, turn.UserID)
		mu.Unlock()
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
		return emit(Event{Type: EventTextDelta, Delta: "ok"})
	})
	s := newTestService(t, agent, func(o *Options) { o.MaxConcurrent = 2 })
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	greedy, patient := Principal{UserID: "greedy"}, Principal{UserID: "patient"}
	var runs []*Response
	for range 40 {
		r, err := s.StartResponse(ctx, greedy, ResponseRequest{Input: "x", Background: true})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	// Wait until the greedy user holds both slots, then arrive.
	for i := 0; ; i++ {
		mu.Lock()
		n := len(order)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if i > 500 {
			t.Fatal("the greedy user's turns did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	arrivedAfter := len(order)
	mu.Unlock()
	one, err := s.StartResponse(ctx, patient, ResponseRequest{Input: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if out := waitDone(t, one); out.Err != nil {
		t.Fatal(out.Err)
	}
	mu.Lock()
	defer mu.Unlock()
	at := -1
	for i, u := range order {
		if u == patient.UserID {
			at = i
		}
	}
	// At most one more greedy turn may start before it: the one that took a
	// slot freed at the same moment.
	if at < 0 || at > arrivedAfter+1 {
		t.Fatalf("the patient user's turn started %dth (%d greedy turns had started when it arrived); order %v", at, arrivedAfter, order)
	}
	for _, r := range runs {
		r.Cancel()
	}
}

// One user's running and queued turns, and the queue itself, are bounded:
// past either bound a new turn is refused at once with a Retry-After, and
// nothing is stored for it.
func TestAdmissionBounds(t *testing.T) {
	block := make(chan struct{})
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		select {
		case <-block:
		case <-ctx.Done():
			return ctx.Err()
		}
		return emit(Event{Type: EventTextDelta, Delta: "ok"})
	})
	s := newTestService(t, agent, func(o *Options) { o.MaxConcurrent, o.MaxPerUser, o.MaxQueued = 1, 3, 4 })
	defer close(block)
	ctx := context.Background()
	alice, bob, carol := Principal{UserID: "alice"}, Principal{UserID: "bob"}, Principal{UserID: "carol"}
	for range 3 {
		if _, err := s.StartResponse(ctx, alice, ResponseRequest{Input: "x", Background: true}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.StartResponse(ctx, alice, ResponseRequest{Input: "one too many", Background: true})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrRateLimited) || e.RetryAfter <= 0 {
		t.Fatalf("alice's 4th turn: %v, want ErrRateLimited with RetryAfter", err)
	}
	page, _ := s.ListSessions(ctx, alice, "", 10)
	if len(page.Sessions) != 3 {
		t.Fatalf("a refused turn created a session: %d sessions, want 3", len(page.Sessions))
	}
	// 1 running + 2 queued (alice) + 2 queued (bob) reaches the queue bound.
	for range 2 {
		if _, err := s.StartResponse(ctx, bob, ResponseRequest{Input: "x", Background: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.StartResponse(ctx, carol, ResponseRequest{Input: "x", Background: true}); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("a turn past the queue bound: %v, want ErrRateLimited", err)
	}
}

// A queued turn that never gets a slot ends at its deadline: it does not
// queue forever.
func TestQueuedTurnEndsAtItsDeadline(t *testing.T) {
	block, hogging := make(chan struct{}), make(chan struct{})
	defer close(block)
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		if turn.Input == "hog" {
			close(hogging)
			<-block // holds its slot past its own deadline, until the test ends
		}
		return emit(Event{Type: EventTextDelta, Delta: "ok"})
	})
	s := newTestService(t, agent, func(o *Options) { o.MaxConcurrent, o.Timeout = 1, 300*time.Millisecond })
	ctx := context.Background()
	if _, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "hog", Background: true}); err != nil {
		t.Fatal(err)
	}
	<-hogging
	r, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "waits", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	out := waitDone(t, r)
	if out.Err == nil || out.Err.Code != CodeTimedOut {
		t.Fatalf("queued past its deadline: %+v, want %s", out.Err, CodeTimedOut)
	}
}

// An answer to an approval whose replica died is refused at once with 409
// execution_unavailable, not a 500 after the lease lapses.
func TestAnswerToADeadReplicasWait(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
				if err := turn.RequestApproval(ctx, ApprovalRequest{Action: "send"}); err != nil {
					return err
				}
				return emit(Event{Type: EventTextDelta, Delta: "sent"})
			})
			svcs := replicas(t, c, 2, agent, nil)
			holder, other := svcs[0], svcs[1]
			ctx := context.Background()
			r, err := holder.StartResponse(ctx, testUser, ResponseRequest{Input: "x"})
			if err != nil {
				t.Fatal(err)
			}
			out := r.Outcome()
			if out.Envelope.RequiredAction == nil {
				t.Fatalf("no approval asked: %s", out.Body)
			}
			holder.stop() // the replica dies: it no longer hears the store
			start := time.Now()
			_, err = other.Decide(ctx, testUser, out.Envelope.RequiredAction.ID, true)
			if e := AsError(err); !errors.Is(err, ErrConflict) || e.Code != "execution_unavailable" {
				t.Fatalf("answer to a dead replica's wait: %v, want 409 execution_unavailable", err)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Fatalf("the refusal took %v; it should not wait for the lease", took)
			}
		})
	}
}

// failingHook fails every command while on is set: the store is
// unreachable for this replica.
type failingHook struct{ on atomic.Bool }

var errInjected = errors.New("injected store outage")

func (h *failingHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *failingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.on.Load() {
			cmd.SetErr(errInjected)
			return errInjected
		}
		return next(ctx, cmd)
	}
}
func (h *failingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if h.on.Load() {
			for _, c := range cmds {
				c.SetErr(errInjected)
			}
			return errInjected
		}
		return next(ctx, cmds)
	}
}

// A turn whose final step could not be written during a store outage is
// told to its caller as store_unavailable at once, and recorded with its
// real outcome when the store is back: never replica_lost, since the
// replica lived.
func TestFinalStepRecordedAfterAnOutage(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			hook := &failingHook{}
			release := make(chan struct{})
			agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
				<-release
				return emit(Event{Type: EventTextDelta, Delta: "answer"})
			})
			st, err := redisstore.Open(context.Background(), redisstore.Options{URL: c.URL, KeyPrefix: testutil.Prefix(t), Hooks: []redis.Hook{hook}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			s := New(Options{Store: st, Agent: agent, Lease: time.Second, SweepInterval: 50 * time.Millisecond})
			if err := s.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
			ctx := context.Background()
			r, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "x"})
			if err != nil {
				t.Fatal(err)
			}
			hook.on.Store(true)
			close(release)
			out := r.Outcome()
			if out.Err == nil || out.Err.Code != "store_unavailable" {
				t.Fatalf("outcome during the outage: %+v, want store_unavailable", out.Err)
			}
			time.Sleep(1500 * time.Millisecond) // longer than the lease
			hook.on.Store(false)
			waitDone(t, r)
			env := receipt(t, s, r)
			if env.Status != StatusCompleted || env.OutputText != "answer" {
				t.Fatalf("receipt after the outage: %s %+v %q, want completed", env.Status, env.Error, env.OutputText)
			}
			page, _ := s.Messages(ctx, testUser, r.SessionID, "", 10)
			if len(page.Messages) != 2 {
				t.Fatalf("transcript: %d messages, want 2", len(page.Messages))
			}
		})
	}
}
