package runtime

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store"
)

// recordingOutbox keeps what the service enqueues.
type recordingOutbox struct {
	mu   sync.Mutex
	sent []store.Delivery
}

func (o *recordingOutbox) CheckURL(string) error { return nil }

func (o *recordingOutbox) Enqueue(_ context.Context, d store.Delivery) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sent = append(o.sent, d)
	return nil
}

func (o *recordingOutbox) deliveries() []store.Delivery {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]store.Delivery(nil), o.sent...)
}

// A queued response with a webhook that is cancelled before it runs posts
// its cancelled receipt, as any final does, from the replica that
// cancelled it.
func TestCancelledQueuedSendsItsWebhook(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			started, release := make(chan string, 1), make(chan struct{})
			defer close(release)
			var ran sync.Map
			replicas, _ := busyReplicas(t, c, 2, BusyEnqueue, blockingAgent(started, release, &ran))
			a, b := replicas[0], replicas[1]
			outA, outB := &recordingOutbox{}, &recordingOutbox{}
			a.UseOutbox(outA)
			b.UseOutbox(outB)
			ctx := context.Background()
			first, err := a.StartResponse(ctx, testUser, ResponseRequest{Input: "block", Background: true})
			if err != nil {
				t.Fatal(err)
			}
			<-started
			q, err := b.StartResponse(ctx, testUser, ResponseRequest{Input: "x", SessionID: first.SessionID, Background: true,
				Webhook: &Webhook{URL: "https://hooks.example/done"}})
			if err != nil {
				t.Fatal(err)
			}
			body, err := a.CancelResponse(ctx, testUser, first.SessionID, q.ID)
			if err != nil || statusOf(body) != StatusCancelled {
				t.Fatalf("cancel %s %v", body, err)
			}
			sent := outA.deliveries()
			if len(sent) != 1 || sent[0].URL != "https://hooks.example/done" || sent[0].Key != "response/"+q.ID ||
				!strings.Contains(string(sent[0].Body), `"status":"cancelled"`) {
				t.Fatalf("deliveries %+v", sent)
			}
			if got := outB.deliveries(); len(got) != 0 {
				t.Fatalf("the accepting replica sent %+v", got)
			}
		})
	}
}
