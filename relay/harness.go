package relay

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// AgentWith is the relay backend with a section of its own (a router's
// relay harness): the same relay, owners and store, another participant
// choice, deadline and visitor policy.
func (r *Relay) AgentWith(b config.RelayBackend) runtime.Agent {
	c := *r
	c.backend = b
	return (*relayAgent)(&c)
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
