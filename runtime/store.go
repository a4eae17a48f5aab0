package runtime

import (
	"context"
	"time"

	"github.com/harnest/harnest/store"
)

// Store is what the Service keeps in the store: the core's part of it
// (store.Store's slices from Sessions to Messaging, but the outbox, which
// the outbox package's Dispatcher takes), the per-user limits of turns, the shared secret
// its tokens and webhooks are sealed and signed with, and readiness. It
// takes, of store.Waits and store.Assets, the methods it calls: a wait by
// its ID alone is the AG-UI door's, and the assets' usage is read by
// nobody but the contract suite.
type Store interface {
	store.Sessions
	store.Transcripts
	store.Responses
	store.Events
	store.Runs
	store.Replicas
	store.Messaging
	store.Limits
	store.Secrets
	store.SessionStatus
	store.Journals
	store.Attempts
	store.Queues
	store.Steers
	store.Compactions

	// Of store.Waits.
	GetWait(ctx context.Context, user, id string) (store.Wait, bool, error)
	ReadWait(ctx context.Context, user, session, id string) (store.Wait, bool, error)
	ResolveWait(ctx context.Context, user, id, kind, status string, output []byte, now time.Time) (w store.Wait, current string, err error)
	FinishWait(ctx context.Context, user, session, responseID, id, status string, epoch int) error

	// Of store.Assets.
	PutAsset(ctx context.Context, user, session string, a store.Asset, data []byte, q store.AssetQuota) error
	GetAsset(ctx context.Context, user, session, id string) (store.Asset, bool, error)
	ReadAsset(ctx context.Context, user, session, id string, offset, length int64) ([]byte, store.Asset, bool, error)
	DeleteAsset(ctx context.Context, user, session, id string) (found bool, err error)

	// Of store.UsageCounters: a user's day, for the budgets (usage.go);
	// the turns' usage goes with their final step (store.Commit.Usage).
	UsageOfDay(ctx context.Context, user string, now time.Time) (store.UsageLine, error)

	// Ping checks that the store answers (readiness).
	Ping(ctx context.Context) error
}
