package routerapi

import (
	"context"

	"github.com/harnest/harnest/store"
)

// Router is what the owner routes ask of the harness router. The router
// backend (backend/router) has it; server, which builds both, wires one
// into the other, so this door never imports a backend.
//
// A change the router refuses is an error that wraps runtime.ErrInvalid
// (answered 400 with the error's sentence); a harness it does not have
// wraps runtime.ErrNotFound (404 harness_not_found); any other error is
// the store's (503).
type Router interface {
	// Status is the owner's page as user sees it, answered as JSON.
	Status(ctx context.Context, user string) (any, error)
	// SetChoice saves the harness choice ("" for none).
	SetChoice(ctx context.Context, choice string) error
	// SetTurns saves who answers owners' and visitors' turns (nil: as it is).
	SetTurns(ctx context.Context, owner, visitor *string) error
	// Apply saves the owner's settings.
	Apply(ctx context.Context, s Settings) error
	// SetPaused pauses or resumes a harness.
	SetPaused(ctx context.Context, name string, paused bool) error
	// Receipts reads a page of routed turns' receipts, newest first.
	Receipts(ctx context.Context, cursor string, limit int) (store.RouterReceiptPage, error)
}

// Settings are the owner's changes, as POST /owner/router/settings takes
// them; nil fields stay as they are. It has the fields of the router's
// own settings, so the composition root converts one to the other.
type Settings struct {
	Allowed    *[]string `json:"allowed,omitempty"`
	Paused     *[]string `json:"paused,omitempty"`
	DailyTurns *int      `json:"dailyTurns,omitempty"`
	Fallback   *string   `json:"fallback,omitempty"`
}
