package store

// PushConfigs are the A2A push notification configs of a user's tasks.
type PushConfigs interface {
}
