package relay

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/relay/agent"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// AgentWith is the relay backend (relay/agent) of a section:
// spec.backend.relay or a router's relay harness. It asks this relay's
// owners and store; the section chooses the participant, the deadline and
// the visitor policy.
func (r *Relay) AgentWith(b config.RelayBackend) runtime.Agent { return r.agentWith(b) }

// agentWith is AgentWith as the relay/agent type.
func (r *Relay) agentWith(b config.RelayBackend) *agent.Agent {
	return agent.New(agent.Options{Store: r.st, Section: b, IsOwner: r.IsOwner, VisitorOwner: r.visitorOwner(),
		Now: r.now, Tick: r.tick, Ready: r.toolsReady})
}

// HandOff puts a hand-off to a person into the feed of the owner who
// answers user's turns (the user when they are an owner, else the first
// owner), as a stage item that names the response and session only.
func (r *Relay) HandOff(ctx context.Context, user, responseID, sessionID string) error {
	owner := user
	if !r.IsOwner(user) {
		owner = r.visitorOwner()
	}
	if owner == "" {
		return errors.New("relay: no owner takes hand-offs")
	}
	item, err := json.Marshal(map[string]string{"type": "handoff", "responseId": responseID, "sessionId": sessionID})
	if err != nil {
		return err
	}
	_, err = r.st.AppendRelayFeed(ctx, owner, store.RelayFeedEntry{Name: "router", Kind: "router", Type: "stage",
		Item: item, At: stamp(r.now())})
	return err
}
