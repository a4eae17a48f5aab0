package conformance

import (
	"errors"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/harnest/harnest/server/servertest"
)

// The extended card and the wire fixes of issue 15, with the a2a-go v2
// client (and, in jswire_test.go, @a2a-js/sdk 1.3.0).

const securedToken = "conformance-token-0123456789"

// extendedCardYAML is agent-card.extended.yaml: one more skill.
const extendedCardYAML = `skills:
  - {id: echo, name: Echo, description: Repeats the message back., tags: [echo]}
  - {id: premium, name: Premium echo, description: Repeats it twice., tags: [echo]}
`

// startSecured serves the echo agent with a bearer token configured and
// the folder's agent-card.extended.yaml loaded by config.Load.
func startSecured(t testing.TB) *server {
	t.Helper()
	cfg := configHead + "spec:\n  backend:\n    echo: {}\n" +
		"auth:\n  tokens:\n    - {token: " + securedToken + ", user: alice}\n"
	dir := writeFolder(t, map[string]string{"config.yaml": cfg, "agent-card.yaml": agentCard, "agent-card.extended.yaml": extendedCardYAML})
	ts := servertest.Start(t, "", servertest.Setup{Folder: dir, PublicURL: true}) // the server serves the folder's extended card
	return &server{URL: ts.URL}
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func clientWithToken(t *testing.T, s *server, binding a2a.TransportProtocol, token string) (*a2aclient.Client, *a2a.AgentCard) {
	t.Helper()
	ctx := ctxT(t)
	card, err := agentcard.DefaultResolver.Resolve(ctx, s.URL)
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	hc := &http.Client{Transport: bearer{token}}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{binding}}))
	if err != nil {
		t.Fatalf("client from card: %v", err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c, card
}

func TestV2ExtendedCard(t *testing.T) {
	s := startSecured(t)
	for _, binding := range bindingsV2 {
		t.Run(string(binding), func(t *testing.T) {
			c, public := clientWithToken(t, s, binding, securedToken)
			if !public.Capabilities.ExtendedAgentCard || len(public.Skills) != 1 {
				t.Fatalf("public card: extendedAgentCard %v, %d skills", public.Capabilities.ExtendedAgentCard, len(public.Skills))
			}
			card, err := c.GetExtendedAgentCard(ctxT(t), &a2a.GetExtendedAgentCardRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(card.Skills) != 2 || card.Skills[1].ID != "premium" {
				t.Fatalf("extended card skills %+v", card.Skills)
			}
			wrong, _ := clientWithToken(t, s, binding, "not-the-token")
			if _, err := wrong.GetExtendedAgentCard(ctxT(t), &a2a.GetExtendedAgentCardRequest{}); err == nil {
				t.Fatal("extended card with a wrong token")
			}
		})
	}
	// Without the file the client is told there is none.
	plain := startHarnest(t, "{}")
	for _, binding := range bindingsV2 {
		c := clientV2(t, plain, binding)
		if _, err := c.GetExtendedAgentCard(ctxT(t), &a2a.GetExtendedAgentCardRequest{}); !errors.Is(err, a2a.ErrExtendedCardNotConfigured) {
			t.Errorf("%s without an extended card: %v", binding, err)
		}
	}
}

// TestV2StreamErrorsBeforeTheFirstEvent: a streaming call that fails at
// once is reported by the client as that error, on both bindings (JSON-RPC
// sends it as the stream's one event).
func TestV2StreamErrorsBeforeTheFirstEvent(t *testing.T) {
	s := startHarnest(t, "{}")
	for _, binding := range bindingsV2 {
		t.Run(string(binding), func(t *testing.T) {
			c, ctx := clientV2(t, s, binding), ctxT(t)
			var task *a2a.Task
			for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("done"))}) {
				if err != nil {
					t.Fatal(err)
				}
				if tk, ok := ev.(*a2a.Task); ok {
					task = tk
				}
			}
			if task == nil {
				t.Fatal("no task")
			}
			firstError := func(seq func(func(a2a.Event, error) bool)) error {
				for _, err := range seq {
					if err != nil {
						return err
					}
				}
				return nil
			}
			if err := firstError(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID})); !errors.Is(err, a2a.ErrUnsupportedOperation) {
				t.Errorf("subscribe to a finished task: %v, want UnsupportedOperation", err)
			}
			unknown := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("x"))
			unknown.TaskID = "no-such-task"
			if err := firstError(c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: unknown})); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("stream to an unknown task: %v, want TaskNotFound", err)
			}
		})
	}
}
