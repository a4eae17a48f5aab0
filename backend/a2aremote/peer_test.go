package a2aremote_test

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// goPeer is a remote A2A agent served in the test by the a2a-go v2
// server, with an executor that acts on the message text:
//
//	"ask"        -> input-required "What is your name?"; the answer on the
//	                same task completes with "Hello, <answer>!"
//	"hang"       -> works until cancelled (reports the task on started)
//	"slow"       -> works until finish is closed (reports the task on
//	                started), then completes with "slow done"
//	"auth"       -> auth-required; "fail" -> failed; "reject" -> rejected
//	"data"       -> an artifact with a data part {"answer": 42}
//	anything else -> "turn N: <text>" in two appended chunks, N counting
//	                 the turns of the context
type goPeer struct {
	URL       string
	started   chan a2a.TaskID
	cancelled chan a2a.TaskID
	release   chan struct{}
	finish    chan struct{}

	mu       sync.Mutex
	messages int // the messages received (each Execute)
	turns    map[string]int
	auths    []string // the Authorization headers seen
}

// peerSetup says how the peer serves.
type peerSetup struct {
	Binding   a2a.TransportProtocol // JSONRPC (default) or HTTP+JSON
	Version   string                // "1.0" (default) or "0.3"
	NoStream  bool                  // the card says streaming: false
	Token     string                // required bearer token, if any
	CardExtra func(*a2a.AgentCard)  // changes the card
}

func startGoPeer(t testing.TB, s peerSetup) *goPeer {
	t.Helper()
	p := &goPeer{started: make(chan a2a.TaskID, 8), cancelled: make(chan a2a.TaskID, 8),
		release: make(chan struct{}), finish: make(chan struct{}), turns: map[string]int{}}
	if s.Binding == "" {
		s.Binding = a2a.TransportProtocolJSONRPC
	}
	if s.Version == "" {
		s.Version = "1.0"
	}
	hs := httptest.NewUnstartedServer(nil)
	p.URL = "http://" + hs.Listener.Addr().String()
	ifaceURL := p.URL + "/rpc"
	if s.Binding == a2a.TransportProtocolHTTPJSON {
		ifaceURL = p.URL + "/rest"
	}
	card := &a2a.AgentCard{
		Name: "go-peer", Description: "A test peer.", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: ifaceURL, ProtocolBinding: s.Binding, ProtocolVersion: a2a.ProtocolVersion(s.Version)}},
		Capabilities:        a2a.AgentCapabilities{Streaming: !s.NoStream},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "Echoes.", Tags: []string{"test"}}},
	}
	if s.CardExtra != nil {
		s.CardExtra(card)
	}
	h := a2asrv.NewHandler(p, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	if s.Version == "0.3" {
		mux.Handle("/rpc", a2av0.NewJSONRPCHandler(h))
		mux.Handle("/rest/", http.StripPrefix("/rest", a2av0.NewRESTHandler(h)))
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card)))
	} else {
		mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(h))
		mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	}
	hs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		p.mu.Lock()
		p.auths = append(p.auths, auth)
		p.mu.Unlock()
		if s.Token != "" && auth != "Bearer "+s.Token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
	hs.Start()
	t.Cleanup(func() {
		close(p.release)
		hs.CloseClientConnections()
		hs.Close()
	})
	return p
}

// received is how many messages the peer received.
func (p *goPeer) received() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.messages
}

// authHeaders returns the Authorization headers the peer received.
func (p *goPeer) authHeaders() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.auths...)
}

func (p *goPeer) turn(contextID string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turns[contextID]++
	return p.turns[contextID]
}

func textOf(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, part := range m.Parts {
		b.WriteString(part.Text())
	}
	return b.String()
}

func agentSays(ec *a2asrv.ExecutorContext, text string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))
}

// Execute runs the scenario the message names.
func (p *goPeer) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := textOf(ec.Message)
		p.mu.Lock()
		p.messages++
		p.mu.Unlock()
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, agentSays(ec, "working on it")), nil) {
			return
		}
		end := func(state a2a.TaskState, msg *a2a.Message) { yield(a2a.NewStatusUpdateEvent(ec, state, msg), nil) }
		switch {
		case ec.StoredTask != nil && ec.StoredTask.Status.State == a2a.TaskStateInputRequired:
			if yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart("Hello, "+text+"!")), nil) {
				end(a2a.TaskStateCompleted, nil)
			}
		case text == "ask":
			end(a2a.TaskStateInputRequired, agentSays(ec, "What is your name?"))
		case text == "hang":
			p.started <- ec.TaskID
			select {
			case <-ctx.Done():
			case <-p.release:
			case <-time.After(20 * time.Second):
			}
		case text == "slow":
			p.started <- ec.TaskID
			select {
			case <-ctx.Done():
				return
			case <-p.finish:
			case <-time.After(20 * time.Second):
			}
			if yield(a2a.NewArtifactEvent(ec, a2a.NewTextPart("slow done")), nil) {
				end(a2a.TaskStateCompleted, nil)
			}
		case text == "auth":
			end(a2a.TaskStateAuthRequired, agentSays(ec, "sign in first"))
		case text == "fail":
			end(a2a.TaskStateFailed, agentSays(ec, "internal boom"))
		case text == "reject":
			end(a2a.TaskStateRejected, agentSays(ec, "not my job"))
		case text == "data":
			if yield(a2a.NewArtifactEvent(ec, a2a.NewDataPart(map[string]any{"answer": 42})), nil) {
				end(a2a.TaskStateCompleted, nil)
			}
		default:
			first := a2a.NewArtifactEvent(ec, a2a.NewTextPart(fmt.Sprintf("turn %d:", p.turn(ec.ContextID))))
			if !yield(first, nil) {
				return
			}
			rest := a2a.NewArtifactUpdateEvent(ec, first.Artifact.ID, a2a.NewTextPart(" "+text))
			rest.LastChunk = true
			if yield(rest, nil) {
				end(a2a.TaskStateCompleted, nil)
			}
		}
	}
}

// Cancel reports the task and cancels it.
func (p *goPeer) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		p.cancelled <- ec.TaskID
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
