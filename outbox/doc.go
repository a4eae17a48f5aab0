// Package outbox sends what the store's outbox holds: every replica runs
// one Dispatcher, which claims the deliveries that are due (completion
// webhooks that the runtime enqueues, A2A push notifications that the A2A
// door enqueues), signs each with the signer registered for its kind, and
// POSTs it through the address guard (internal/netguard). It is harnest's
// one sender of outbound HTTP deliveries, kept out of the core: runtime
// only enqueues, through the small interface it owns (runtime.Outbox), and
// serves and sends no HTTP.
package outbox
