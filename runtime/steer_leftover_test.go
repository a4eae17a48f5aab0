package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// stubbornAgent takes steers but never looks for them: an input starting
// with "block" says "partial" and waits for release; any other is echoed.
type stubbornAgent struct {
	started chan<- string
	release <-chan struct{}
}

func (stubbornAgent) TakesSteers() bool { return true }

func (a stubbornAgent) Run(ctx context.Context, turn *Turn, emit Emit) error {
	if !strings.HasPrefix(turn.Input, "block") {
		return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
	}
	if err := emit(Event{Type: EventTextDelta, Delta: "partial"}); err != nil {
		return err
	}
	a.started <- turn.Input
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-a.release:
		return nil
	}
}

// A steer answered 202 that the turn ends before taking is not dropped:
// it becomes the session's next message, the response SteerResponseID(its
// ID), whose metadata names the steer and the steered response, and the
// transcript holds it after the turn. The steer is sent to the replica
// that does not run the turn.
func TestSteerTheTurnNeverTookBecomesTheNextMessage(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			started, release := make(chan string, 1), make(chan struct{})
			replicas, st := busyReplicas(t, c, 2, BusyReject, func(store.Store) Agent { return stubbornAgent{started, release} })
			a, b := replicas[0], replicas[1]
			ctx := context.Background()
			first, err := a.StartResponse(ctx, testUser, ResponseRequest{Input: "block", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			<-started
			accepted, err := b.SteerResponse(ctx, testUser, first.SessionID, first.ID, SteerRequest{Input: "change of plan"})
			if err != nil {
				t.Fatal(err)
			}
			close(release)
			if env := finalReceiptOf(t, st, testUser.UserID, first.SessionID, first.ID); env.Status != StatusCompleted || env.OutputText != "partial" {
				t.Fatalf("the steered turn %+v", env)
			}
			next := SteerResponseID(accepted.ID)
			env := finalReceiptOf(t, st, testUser.UserID, first.SessionID, next)
			if env.Status != StatusCompleted || env.OutputText != "echo: change of plan" {
				t.Fatalf("the steer's response %+v", env)
			}
			var meta map[string]string
			if err := json.Unmarshal(env.Metadata, &meta); err != nil || meta["steerId"] != accepted.ID || meta["steeredResponseId"] != first.ID {
				t.Fatalf("metadata %s %v", env.Metadata, err)
			}
			want := []string{"user:block", "assistant:partial", "user:change of plan", "assistant:echo: change of plan"}
			if got := transcriptOf(t, a, first.SessionID); !slices.Equal(got, want) {
				t.Fatalf("transcript %q", got)
			}
			// The steered response is over: a steer now is refused, and
			// nothing is kept for it.
			if _, err := b.SteerResponse(ctx, testUser, first.SessionID, first.ID, SteerRequest{Input: "late"}); err == nil {
				t.Fatal("a steer of a final response was accepted")
			}
		})
	}
}
