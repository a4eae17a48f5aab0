// Package store defines what harnest keeps and how it is kept: the Store
// interface, with one typed operation for each thing the runtime and the
// transports store, and the types those operations take. It holds no
// implementation and imports no client library.
//
// Files:
//
//   - store.go: Store and its parts: sessions and their state, transcripts,
//     responses and their receipts and leases, event logs, the run
//     registry, waits, assets, shared secrets, and the hub that carries
//     control messages and event wake-ups between replicas.
//   - types.go: the types and errors of those parts.
//   - receipt.go: IsFinalReceipt, which decides that a receipt never
//     changes again.
//   - tasks.go: the A2A transport's tasks (Tasks).
//   - threads.go: the AG-UI transport's thread records (Threads).
//   - relay.go: the relay's pairing codes, participants, inboxes, feeds,
//     rate buckets and wake-ups (Relay).
//
// Two implementations sit behind it: memstore (in-process, native Go data,
// the zero-setup default) and redisstore (go-redis: a single node,
// Sentinel or Cluster; with no URL it runs on an embedded miniredis, which
// only tests use). Package stores is the one place that picks one (a Redis
// URL or not); everything else sees this interface. The contract suite in
// storetest states every operation's meaning as tests and runs on
// memstore, on redisstore over miniredis and on a real redis-server.
package store
