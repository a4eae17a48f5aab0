package store

// Outbox is the durable queue of outgoing deliveries (A2A push
// notifications, completion webhooks) that any replica may send.
type Outbox interface {
}
