package store

import (
	"context"
	"time"
)

// Router is the harness router's state, shared by every replica: daily
// counters per UTC day, each harness's breaker, the owner's overrides of
// the router's config and the text-free receipts of routed turns. It is
// the agent's: one router per store (key prefix). Owner: the router
// backend (backend/router); the owner's routes (routerapi) reach it
// through the router.
type Router interface {
	// TakeRouterCount adds by (negative: gives back) to the counter name
	// of the UTC day of now when the sum stays at most limit (limit < 0:
	// always), and returns the counter after the call and whether it
	// added. Counters last two days. Holding before and settling after
	// (internal/budget) keeps concurrent spenders within a limit.
	TakeRouterCount(ctx context.Context, name string, by, limit int64, now time.Time) (count int64, ok bool, err error)
	// RouterCounts reads every counter of the UTC day of now (name to
	// value; missing counters are 0).
	RouterCounts(ctx context.Context, now time.Time) (map[string]int64, error)

	// AdmitRouterHarness asks the harness's breaker for a turn: closed
	// admits; open refuses until its cool-down ends, then admits one
	// trial turn at a time (half-open; a trial that never reports lapses
	// after b.TrialTimeout). It returns the state it decided in.
	AdmitRouterHarness(ctx context.Context, harness string, b RouterBreakerPolicy, now time.Time) (admitted bool, state string, err error)
	// ReportRouterHarness records a turn's outcome: a failure counts in
	// the window and opens the breaker at b.Failures (a failed trial
	// opens it again at once); a successful trial closes it and forgets
	// the failures. It returns the state after.
	ReportRouterHarness(ctx context.Context, harness string, b RouterBreakerPolicy, ok bool, now time.Time) (state string, err error)
	// RouterBreakerState reads a harness's breaker state without changing
	// it.
	RouterBreakerState(ctx context.Context, harness string, b RouterBreakerPolicy, now time.Time) (string, error)

	// RouterOverrides reads the owner's overrides of the router's config.
	RouterOverrides(ctx context.Context) (RouterOverrides, error)
	// SetRouterOverrides writes the set fields of o (nil fields and a nil
	// Paused are left as they are; Paused entries set or clear a pause).
	SetRouterOverrides(ctx context.Context, o RouterOverrides) error

	// AddRouterReceipt keeps a routed turn's receipt for the receipts'
	// retention (receipts older than that are dropped; at most
	// RouterReceiptsMax are kept).
	AddRouterReceipt(ctx context.Context, r RouterReceipt) error
	// ListRouterReceipts returns up to limit receipts (1..100) newest
	// first, after the cursor (the Next of the previous page; "" from the
	// newest).
	ListRouterReceipts(ctx context.Context, cursor string, limit int, now time.Time) (RouterReceiptPage, error)
}

// Router breaker states.
const (
	RouterClosed   = "closed"
	RouterOpen     = "open"
	RouterHalfOpen = "half_open"
)

// RouterReceiptsMax bounds the router receipts a store keeps.
const RouterReceiptsMax = 100_000

// RouterBreakerPolicy is how a harness's breaker counts.
type RouterBreakerPolicy struct {
	Failures     int           // failures within Window that open it (at least 1)
	Window       time.Duration // at least a millisecond
	CoolDown     time.Duration // how long it stays open
	TrialTimeout time.Duration // how long a half-open trial holds the harness
}

// RouterOverrides are the owner's changes to the router's config; nil
// means "as configured".
type RouterOverrides struct {
	Choice     *string
	OwnerTurns *string
	// VisitorTurns is who answers visitors' turns.
	VisitorTurns *string
	Fallback     *string
	// DailyTurns is the owner's daily cap of routed turns (narrowing the
	// plan's).
	DailyTurns *int
	// Allowed are the harnesses the owner allows (nil: all).
	Allowed *[]string
	// Paused maps a harness to whether the owner paused it.
	Paused map[string]bool
}

// RouterRung is one rung of the fallback ladder a turn tried, with the
// reason it was skipped or failed ("" when it answered).
type RouterRung struct {
	Name   string `json:"name"`
	Reason string `json:"reason,omitempty"`
}

// RouterReceipt is one routed turn. It never holds text: no message,
// argument, answer or secret.
type RouterReceipt struct {
	At         time.Time    `json:"at"`
	ResponseID string       `json:"responseId"`
	SessionID  string       `json:"sessionId"`
	User       string       `json:"user"`
	Visitor    bool         `json:"visitor"`
	Choice     string       `json:"choice"`
	AnsweredBy string       `json:"answeredBy"`
	Reason     string       `json:"reason,omitempty"`
	Rungs      []RouterRung `json:"rungs,omitempty"`
	WaitMs     int64        `json:"waitMs"`
	TotalMs    int64        `json:"totalMs"`
	CostMicros int64        `json:"costMicros"`
}

// RouterReceiptPage is one page of router receipts.
type RouterReceiptPage struct {
	Receipts []RouterReceipt
	// Next is the cursor of the next page; "" on the last one.
	Next string
}
