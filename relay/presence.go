package relay

import (
	"context"

	"github.com/harnest/harnest/config"
)

// Connected reports whether an outside agent would take a turn of owner
// through the relay section b (a router's relay harness) now: one of
// owner's participants matching b's name and kind is paired, its session
// live, and not paused. A visitor's turn goes to the first owner's
// participants, so pass that owner for visitors. An error is the store's.
func (r *Relay) Connected(ctx context.Context, b config.RelayBackend, owner string) (bool, error) {
	if !r.IsOwner(owner) {
		owner = r.visitorOwner()
	}
	if owner == "" {
		return false, nil
	}
	return r.agentWith(b).Connected(ctx, owner)
}
