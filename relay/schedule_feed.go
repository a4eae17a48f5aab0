package relay

import (
	"context"
	"encoding/json"

	"github.com/harnest/harnest/store"
)

// ScheduleFired puts a fire of user's schedule into the feed of the owner
// who follows user's work (the user when they are an owner, else the
// agent's first owner), as a stage item that names the schedule, the fire,
// its response and session, its status, and, once the response is over,
// its outcome (no input text). Nothing is posted when nobody is such an
// owner.
func (r *Relay) ScheduleFired(ctx context.Context, user, scheduleID string, seq int64, responseID, sessionID, status, failure, outcome string) error {
	owner := user
	if !r.IsOwner(user) {
		owner = r.visitorOwner()
	}
	if owner == "" {
		return nil
	}
	item, err := json.Marshal(map[string]any{"type": "schedule_fire", "userId": user, "scheduleId": scheduleID, "seq": seq,
		"responseId": responseID, "sessionId": sessionID, "status": status, "error": failure, "outcome": outcome})
	if err != nil {
		return err
	}
	_, err = r.st.AppendRelayFeed(ctx, owner, store.RelayFeedEntry{Name: "schedules", Kind: "schedule", Type: "stage",
		Item: item, At: stamp(r.now())})
	return err
}
