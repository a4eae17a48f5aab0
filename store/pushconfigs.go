package store

import (
	"context"
)

// PushConfigs are the A2A push notification configs of a user's tasks: for
// each task, up to a bounded number of configs, each saying where and how
// the task's updates are posted. Configs last as long as a receipt after
// their last put. Owner: the A2A door (a2a), whose notifications go out
// through the Outbox.
type PushConfigs interface {
	// PutPushConfig creates the config, or replaces the task's config with
	// the same ID, and returns it as stored (with the ID the store made
	// when c.ID was empty). ErrPushConfigsFull refuses a new config when
	// the task has maxPerTask already (maxPerTask < 1: no bound).
	PutPushConfig(ctx context.Context, user, taskID string, c PushConfig, maxPerTask int) (PushConfig, error)
	// GetPushConfig reads one config of a task.
	GetPushConfig(ctx context.Context, user, taskID, id string) (c PushConfig, found bool, err error)
	// ListPushConfigs returns up to limit of a task's configs with IDs
	// after after, in ID order (limit < 1: all), and whether more follow.
	ListPushConfigs(ctx context.Context, user, taskID, after string, limit int) (configs []PushConfig, more bool, err error)
	// DeletePushConfig removes a config; found is false when it did not
	// exist (deleting twice is not an error).
	DeletePushConfig(ctx context.Context, user, taskID, id string) (found bool, err error)
}

// PushConfig is where and how a task's updates are posted.
type PushConfig struct {
	ID  string
	URL string
	// Token is sent with every notification (the client checks it).
	Token string
	// AuthScheme and AuthCredentials make the Authorization header
	// ("Bearer", "<credentials>"); empty for none.
	AuthScheme      string
	AuthCredentials string
	// Protocol is the A2A version the config was made with ("1.0",
	// "0.3"): it decides the payload's shape.
	Protocol string
}
