// Package store defines what harnest keeps and how it is kept: the Store
// interface, with one typed operation for each thing the runtime and the
// transports store, and the types those operations take. It holds no
// implementation and imports no client library.
//
// Files:
//
//   - store.go: Store, and the core's part of it, which the runtime takes:
//     sessions and their state (Sessions), transcripts, responses and
//     their receipts and leases (Responses), event logs (Events), the run
//     registry (Runs), waits, assets, and the hub that carries control
//     messages and event wake-ups between replicas (Messaging, Hub).
//   - types.go: the types those core operations take.
//   - outbox.go: the durable queue of outgoing deliveries (Outbox), the
//     core's too: the runtime's dispatcher sends them.
//   - errors.go: every error value of the package, by slice.
//   - receipt.go: IsFinalReceipt, which decides that a receipt never
//     changes again.
//   - observer.go: CommandObserver, through which a store reports its
//     commands to metrics.
//
// The slices beside the core, one file each with its owner:
//
//   - secrets.go: keys every replica agrees on (Secrets): runtime, a2a and
//     relay.
//   - limits.go: per-user limits of turns (Limits): runtime; per-user
//     request windows (UserWindows): internal/httpapi's rate limiter.
//   - tasks.go: the A2A door's tasks (Tasks): a2a.
//   - pushconfigs.go: the A2A door's push notification configs
//     (PushConfigs): a2a.
//   - threads.go: the AG-UI door's thread records (Threads): agui.
//   - relay.go: the relay's pairing codes, participants, inboxes, feeds,
//     rate buckets and wake-ups (Relay): relay.
//   - relay_tools.go: the relay's callback tokens, tool grants and tool
//     calls (RelayTools): relay.
//   - schedules.go: users' schedules and their fires (Schedules): schedule.
//   - memory.go: long-term memory per agent and user, searched by keyword
//     or embedding (Memory): memoryapi and the model backend's tools.
//   - router.go: the harness router's counters, breakers, overrides and
//     receipts (Router): backend/router.
//
// Each package takes only the slices (or the methods) it calls, as an
// interface of package store or one of its own; server, the composition
// root, opens the store and hands it to each. server's TestStoreSlices
// checks that no other package takes a method it never calls.
//
// Two implementations sit behind it: memstore (in-process, native Go data,
// the zero-setup default) and redisstore (go-redis: a single node,
// Sentinel or Cluster; with no URL it runs on an embedded miniredis, which
// only tests use). Package stores is the one place that picks one (a Redis
// URL or not); everything else sees this interface. The contract suite in
// storetest states every operation's meaning as tests and runs on
// memstore, on redisstore over miniredis and on a real redis-server.
package store
