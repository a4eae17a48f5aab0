package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// busyReplicas starts n replicas of agent on the store case c (one
// in-process store they share, or one client each of a real Redis), whose
// agent's default strategy is onBusy.
func busyReplicas(t *testing.T, c testutil.StoreCase, n int, onBusy string, agent func(st store.Store) Agent) ([]*Service, store.Store) {
	t.Helper()
	prefix := testutil.Prefix(t)
	shared := openStore(t, c, prefix)
	out := make([]*Service, n)
	for i := range out {
		st := shared
		if c.URL != "" && i > 0 {
			st = openStore(t, c, prefix)
		}
		s := New(Options{Store: st, Agent: agent(shared), OnBusy: onBusy, FlushDelay: time.Millisecond})
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
	return out, shared
}

// newSession makes a session of testUser with one completed turn.
func newSession(t *testing.T, s *Service) string {
	t.Helper()
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if out := r.Outcome(); out.Err != nil {
		t.Fatal(out.Err)
	}
	return r.SessionID
}

// transcriptOf is the session's transcript as role:content lines, with
// " (interrupted)" after an interrupted message.
func transcriptOf(t *testing.T, s *Service, session string) []string {
	t.Helper()
	page, err := s.Messages(context.Background(), testUser, session, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, raw := range page.Messages {
		var m struct {
			Role     string `json:"role"`
			Content  string `json:"content"`
			Metadata struct {
				Interrupted bool `json:"interrupted"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("message %s: %v", raw, err)
		}
		line := m.Role + ":" + m.Content
		if m.Metadata.Interrupted {
			line += " (interrupted)"
		}
		out = append(out, line)
	}
	return out
}

// 20 messages sent at once to one session, alternating two replicas, half
// of them streamed and half JSON, with the strategy enqueue and a slow
// agent: all are accepted, each starts only once the one accepted before
// it has its final receipt, never two at once, in the order they were
// accepted (the session's list of responses), and the transcript holds
// them in that order.
func TestEnqueueRunsInAcceptanceOrder(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			var running atomic.Int32
			var mu sync.Mutex
			var started []string
			var problems []string
			agent := func(st store.Store) Agent {
				return AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
					if running.Add(1) != 1 {
						mu.Lock()
						problems = append(problems, turn.Input+" ran beside another")
						mu.Unlock()
					}
					defer running.Add(-1)
					if turn.Input != "hello" {
						// The response accepted before this one is final.
						listed, _ := st.SessionResponses(ctx, turn.UserID, turn.SessionID, 0, 100)
						for i, lr := range listed {
							if lr.ID == turn.ResponseID && i+1 < len(listed) {
								b, _, _ := st.Receipt(ctx, turn.UserID, turn.SessionID, listed[i+1].ID)
								if !store.IsFinalReceipt(b) {
									mu.Lock()
									problems = append(problems, turn.Input+" started before the previous one ended: "+string(b))
									mu.Unlock()
								}
							}
						}
						mu.Lock()
						started = append(started, turn.Input)
						mu.Unlock()
					}
					time.Sleep(20 * time.Millisecond)
					return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
				})
			}
			replicas, st := busyReplicas(t, c, 2, BusyEnqueue, agent)
			session := newSession(t, replicas[0])
			const n = 20
			outcomes := make([]Outcome, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req := ResponseRequest{Input: fmt.Sprint("m", i), SessionID: session, Stream: i%2 == 1}
					r, err := replicas[i%2].StartResponse(context.Background(), testUser, req)
					if err != nil {
						errs[i] = err
						return
					}
					if req.Stream {
						var last string
						outcomes[i] = r.Each(func(e Event) error { last = e.Type; return nil })
						if last != EventCompleted {
							errs[i] = fmt.Errorf("stream of %s ended with %s", req.Input, last)
						}
						return
					}
					outcomes[i] = r.Outcome()
				}()
			}
			wg.Wait()
			for i := range n {
				if errs[i] != nil || outcomes[i].Err != nil || outcomes[i].Envelope.OutputText != fmt.Sprint("echo: m", i) {
					t.Fatalf("message %d: %v %v %q", i, errs[i], outcomes[i].Err, outcomes[i].Envelope.OutputText)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(problems) > 0 {
				t.Fatalf("problems: %v", problems)
			}
			listed, err := st.SessionResponses(context.Background(), testUser.UserID, session, 0, 100)
			if err != nil || len(listed) != n+1 {
				t.Fatalf("listed %d responses: %v", len(listed), err)
			}
			var accepted []string
			for i := len(listed) - 2; i >= 0; i-- { // oldest first, past the first turn
				for j := range n {
					if outcomes[j].Envelope.ID == listed[i].ID {
						accepted = append(accepted, fmt.Sprint("m", j))
					}
				}
			}
			if !slices.Equal(started, accepted) {
				t.Fatalf("started in order %v, accepted in order %v", started, accepted)
			}
			want := []string{"user:hello", "assistant:echo: hello"}
			for _, in := range accepted {
				want = append(want, "user:"+in, "assistant:echo: "+in)
			}
			if got := transcriptOf(t, replicas[1], session); !slices.Equal(got, want) {
				t.Fatalf("transcript\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// blockingAgent answers "echo: <input>" at once, but for an input that
// starts with "block": it streams "partial" and waits for its context (or
// for release).
func blockingAgent(started chan<- string, release <-chan struct{}, ran *sync.Map) func(store.Store) Agent {
	return func(store.Store) Agent {
		return AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
			ran.Store(turn.Input, true)
			if !strings.HasPrefix(turn.Input, "block") {
				return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
			}
			if err := emit(Event{Type: EventTextDelta, Delta: "partial"}); err != nil {
				return err
			}
			started <- turn.Input
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-release:
				return emit(Event{Type: EventTextDelta, Delta: " done"})
			}
		})
	}
}

// A queued response cancelled leaves the queue at once with a cancelled
// receipt, and never runs; the one queued after it runs in its turn. The
// session says what it holds meanwhile.
func TestQueuedCancelledNeverRuns(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			started, release := make(chan string, 1), make(chan struct{})
			var ran sync.Map
			replicas, st := busyReplicas(t, c, 2, BusyEnqueue, blockingAgent(started, release, &ran))
			a, b := replicas[0], replicas[1]
			ctx := context.Background()
			first, err := a.StartResponse(ctx, testUser, ResponseRequest{Input: "block", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			<-started
			session := first.SessionID
			x, err := b.StartResponse(ctx, testUser, ResponseRequest{Input: "x", SessionID: session, Background: true})
			if err != nil {
				t.Fatal(err)
			}
			y, err := a.StartResponse(ctx, testUser, ResponseRequest{Input: "y", SessionID: session, Background: true})
			if err != nil {
				t.Fatal(err)
			}
			if env := receipt(t, b, x); env.Status != StatusQueued {
				t.Fatalf("queued receipt %+v", env)
			}
			status, err := b.SessionStatus(ctx, testUser, session)
			if err != nil || status.Status != SessionRunning || status.Queued != 2 || *status.ActiveResponseID != first.ID {
				t.Fatalf("status %+v %v", status, err)
			}
			body, err := a.CancelResponse(ctx, testUser, session, x.ID)
			if err != nil || statusOf(body) != StatusCancelled {
				t.Fatalf("cancel %s %v", body, err)
			}
			close(release)
			if env := finalReceiptOf(t, st, testUser.UserID, session, y.ID); env.Status != StatusCompleted || env.OutputText != "echo: y" {
				t.Fatalf("y %+v", env)
			}
			if _, did := ran.Load("x"); did {
				t.Fatal("the cancelled response ran")
			}
			if env := receipt(t, a, x); env.Status != StatusCancelled {
				t.Fatalf("x %+v", env)
			}
			want := []string{"user:block", "assistant:partial done", "user:y", "assistant:echo: y"}
			if got := transcriptOf(t, a, session); !slices.Equal(got, want) {
				t.Fatalf("transcript %v", got)
			}
		})
	}
}

// interruptOrRollback runs "block" on one replica, then sends "next" with
// strategy from the other, and returns the transcript and the receipt of
// the first.
func interruptOrRollback(t *testing.T, c testutil.StoreCase, strategy string) ([]string, Envelope) {
	started, release := make(chan string, 1), make(chan struct{})
	defer close(release)
	var ran sync.Map
	replicas, st := busyReplicas(t, c, 2, BusyReject, blockingAgent(started, release, &ran))
	a, b := replicas[0], replicas[1]
	ctx := context.Background()
	session := newSession(t, a)
	first, err := a.StartResponse(ctx, testUser, ResponseRequest{Input: "block", SessionID: session, Background: true})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	next, err := b.StartResponse(ctx, testUser, ResponseRequest{Input: "next", SessionID: session, OnBusy: strategy})
	if err != nil {
		t.Fatal(err)
	}
	if out := next.Outcome(); out.Err != nil || out.Envelope.OutputText != "echo: next" {
		t.Fatalf("next: %v %+v", out.Err, out.Envelope)
	}
	return transcriptOf(t, b, session), finalReceiptOf(t, st, testUser.UserID, session, first.ID)
}

// interrupt: the running turn is cancelled (receipt cancelled, code
// interrupted), its partial answer stays in the transcript marked
// interrupted, and the new message runs after it.
func TestInterruptKeepsPartialAnswer(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			got, first := interruptOrRollback(t, c, BusyInterrupt)
			if first.Status != StatusCancelled || first.Error == nil || first.Error.Code != "interrupted" {
				t.Fatalf("interrupted receipt %+v", first)
			}
			want := []string{"user:hello", "assistant:echo: hello",
				"user:block", "assistant:partial (interrupted)",
				"user:next", "assistant:echo: next"}
			if !slices.Equal(got, want) {
				t.Fatalf("transcript\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// rollback: the running turn is cancelled (code rolled_back) and nothing
// of it stays in the transcript.
func TestRollbackRemovesTurn(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			got, first := interruptOrRollback(t, c, BusyRollback)
			if first.Status != StatusCancelled || first.Error == nil || first.Error.Code != "rolled_back" {
				t.Fatalf("rolled back receipt %+v", first)
			}
			want := []string{"user:hello", "assistant:echo: hello", "user:next", "assistant:echo: next"}
			if !slices.Equal(got, want) {
				t.Fatalf("transcript\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// reject answers 409 session_busy as before; a queue past its bound
// answers 429 queue_full naming the bound; a strategy that is none is
// invalid. Nothing is stored for any of them.
func TestBusyRefusals(t *testing.T) {
	started, release := make(chan string, 1), make(chan struct{})
	defer close(release)
	var ran sync.Map
	replicas, st := busyReplicas(t, testutil.StoreCase{}, 1, "", blockingAgent(started, release, &ran))
	s := replicas[0]
	s.busy.maxQueued = 2
	ctx := context.Background()
	first, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "block", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	session := first.SessionID
	count := func() int {
		listed, _ := st.SessionResponses(ctx, testUser.UserID, session, 0, 100)
		return len(listed)
	}
	_, err = s.StartResponse(ctx, testUser, ResponseRequest{Input: "x", SessionID: session})
	if e := AsError(err); !errors.Is(err, ErrConflict) || e.Code != "session_busy" {
		t.Fatalf("default strategy: %v", err)
	}
	if _, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "x", SessionID: session, OnBusy: "later"}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "onBusy") {
		t.Fatalf("bad strategy: %v", err)
	}
	for range 2 {
		if _, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "q", SessionID: session, OnBusy: BusyEnqueue, Background: true}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = s.StartResponse(ctx, testUser, ResponseRequest{Input: "q", SessionID: session, OnBusy: BusyEnqueue, Background: true})
	if e := AsError(err); !errors.Is(err, ErrRateLimited) || e.Code != "queue_full" || !strings.Contains(e.Detail, "2 queued") {
		t.Fatalf("past the bound: %v", err)
	}
	if n := count(); n != 3 {
		t.Fatalf("%d responses listed, want the first and the 2 queued", n)
	}
}

// OnBusyOf reads "onBusy" from the JSON objects doors pass through.
func TestOnBusyOf(t *testing.T) {
	for raw, want := range map[string]string{
		`{"onBusy":"enqueue"}`: "enqueue", `{"a":1,"onBusy":"later"}`: "later", `{"onBusy":3}`: "",
		`{}`: "", ``: "", `[1]`: "", `{"x":"onBusy"}`: "",
	} {
		if got := OnBusyOf(json.RawMessage(raw)); got != want {
			t.Errorf("OnBusyOf(%s) = %q, want %q", raw, got, want)
		}
	}
}

// A queue whose "queued" message was missed (here: forgotten by every
// replica before the running response ends) is not stranded: a sweeper
// finds the queued run and starts it.
func TestSweeperStartsAStrandedQueue(t *testing.T) {
	started, release := make(chan string, 1), make(chan struct{})
	var ran sync.Map
	st := openStore(t, testutil.StoreCase{}, testutil.Prefix(t))
	var replicas []*Service
	for range 2 {
		s := New(Options{Store: st, Agent: blockingAgent(started, release, &ran)(st), OnBusy: BusyEnqueue,
			FlushDelay: time.Millisecond, Liveness: 300 * time.Millisecond})
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
		replicas = append(replicas, s)
	}
	ctx := context.Background()
	first, err := replicas[0].StartResponse(ctx, testUser, ResponseRequest{Input: "block", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	queued, err := replicas[1].StartResponse(ctx, testUser, ResponseRequest{Input: "next", SessionID: first.SessionID, Background: true})
	if err != nil {
		t.Fatal(err)
	}
	ref := sessionRef{testUser.UserID, first.SessionID}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if replicas[0].busy.take(ref) { // the message reached the holder: forget it
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the holder was never told of the queue")
		}
	}
	replicas[1].busy.take(ref)
	close(release)
	if env := finalReceiptOf(t, st, testUser.UserID, first.SessionID, queued.ID); env.Status != StatusCompleted || env.OutputText != "echo: next" {
		t.Fatalf("queued %+v", env)
	}
}
