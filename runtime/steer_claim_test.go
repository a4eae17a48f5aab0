package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// steerFirstAgent takes steers: at its first step it answers each steer
// waiting ("steered: <input>"), then echoes its input.
type steerFirstAgent struct{}

func (steerFirstAgent) TakesSteers() bool { return true }

func (steerFirstAgent) Run(ctx context.Context, turn *Turn, emit Emit) error {
	steers, err := turn.Steers.Take()
	if err != nil {
		return err
	}
	for _, st := range steers {
		if err := emit(Event{Type: EventTextDelta, Delta: "steered: " + st.Input + "; "}); err != nil {
			return err
		}
	}
	return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
}

// keptSteer is a steer as SteerResponse keeps it for a running response
// (here: the lost run's, whose replica died before taking it).
func keptSteer() []byte {
	m, _ := json.Marshal(steerMessage{ID: "steer_0123456789abcdef0123456789abcdef", Input: "use the blue one"})
	return m
}

// A steer kept for a turn whose replica died before taking it is taken by
// the replica that claims the run and runs it again.
func TestClaimerTakesTheSteersOfALostTurn(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			st := openStore(t, c, testutil.Prefix(t))
			lostRun(t, st)
			if err := st.AppendSteer(context.Background(), "u", "sess_lost", "resp_lost", keptSteer()); err != nil {
				t.Fatal(err)
			}
			claimingService(t, st, steerFirstAgent{}, true, 0)
			env := finalReceipt(t, st)
			if env.Status != StatusCompleted || env.OutputText != "steered: use the blue one; echo: hello again" {
				t.Fatalf("receipt %+v", env)
			}
		})
	}
}

// A steer kept for a turn whose replica died before taking it, when the
// turn is not run again (the sweeper fails it replica_lost), becomes the
// session's next message.
func TestSteerOfAFailedLostTurnBecomesTheNextMessage(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			st := openStore(t, c, testutil.Prefix(t))
			lostRun(t, st)
			if err := st.AppendSteer(context.Background(), "u", "sess_lost", "resp_lost", keptSteer()); err != nil {
				t.Fatal(err)
			}
			claimingService(t, st, steerFirstAgent{}, false, 0)
			if env := finalReceipt(t, st); env.Status != StatusFailed || env.Error == nil || env.Error.Code != CodeReplicaLost {
				t.Fatalf("the lost turn %+v", env)
			}
			next := SteerResponseID("steer_0123456789abcdef0123456789abcdef")
			env := finalReceiptOf(t, st, "u", "sess_lost", next)
			if env.Status != StatusCompleted || env.OutputText != "echo: use the blue one" {
				t.Fatalf("the steer's response %+v", env)
			}
		})
	}
}

// waitForSteerAgent echoes an input starting with "first" after release;
// any other input says "waiting", waits for a steer and answers it.
type waitForSteerAgent struct {
	started chan<- string
	release <-chan struct{}
}

func (waitForSteerAgent) TakesSteers() bool { return true }

func (a waitForSteerAgent) Run(ctx context.Context, turn *Turn, emit Emit) error {
	a.started <- turn.Input
	if turn.Input == "first" {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-a.release:
			return emit(Event{Type: EventTextDelta, Delta: "echo: first"})
		}
	}
	if err := emit(Event{Type: EventTextDelta, Delta: "waiting; "}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-turn.Steers.Ready():
		}
		steers, err := turn.Steers.Take()
		if err != nil {
			return err
		}
		if len(steers) > 0 {
			return emit(Event{Type: EventTextDelta, Delta: "steered: " + steers[0].Input})
		}
	}
}

// A response that started from its session's queue takes steers as any
// running response does (it had no inbox before: the steer was answered
// 202 and dropped).
func TestQueuedResponseTakesSteersOnceItRuns(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			started, release := make(chan string, 2), make(chan struct{})
			replicas, st := busyReplicas(t, c, 2, BusyEnqueue, func(store.Store) Agent { return waitForSteerAgent{started, release} })
			a, b := replicas[0], replicas[1]
			ctx := context.Background()
			first, err := a.StartResponse(ctx, testUser, ResponseRequest{Input: "first", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			<-started
			queued, err := b.StartResponse(ctx, testUser, ResponseRequest{Input: "second", SessionID: first.SessionID, Background: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.SteerResponse(ctx, testUser, first.SessionID, queued.ID, SteerRequest{Input: "too early"}); err == nil {
				t.Fatal("a steer of a queued response was accepted")
			}
			close(release)
			if got := <-started; got != "second" {
				t.Fatalf("started %q", got)
			}
			if _, err := b.SteerResponse(ctx, testUser, first.SessionID, queued.ID, SteerRequest{Input: "go left"}); err != nil {
				t.Fatal(err)
			}
			if env := finalReceiptOf(t, st, testUser.UserID, first.SessionID, queued.ID); env.Status != StatusCompleted || env.OutputText != "waiting; steered: go left" {
				t.Fatalf("the queued response %+v", env)
			}
		})
	}
}
