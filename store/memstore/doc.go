// Package memstore is the in-process store: everything harnest keeps, held
// in this process's memory as native Go data, with the same meaning as the
// Redis store (redisstore) operation by operation, as the contract suite
// (storetest) checks. It is the zero-setup default (stores.Open picks it
// when no Redis URL is configured): state lasts as long as the process,
// and several replicas (runtime services) in one process may share one
// Store, each with its own hub.
//
// Layout: a session's data (its state, transcript, lease, responses with
// their receipts and event logs, waits and assets) lives in one of 64
// shards, chosen by a hash of the user and session IDs and guarded by the
// shard's lock (shard.go). A shard's map is keyed by that hash (a 64-bit
// FNV-1a; keys whose hashes collide go to a map of their own) and keeps
// each space's index in the store's space table (spacetable.go), so that
// the garbage collector walks the spaces in the order they were made, not
// in hash order. A user's session index (an ordered B-tree, for keyset
// pages), asset byte counter and wait index have their own lock
// (users.go); so do the space table, the run registry (runs.go), the
// shared secrets (secrets.go) and the hubs (hub.go). A shard lock may be
// held while one of those is taken, never the other way round.
//
// A session's space is one struct holding by value what every session has
// (its record, its transcript's buffers, its first response with its event
// log), and transcripts and event logs are append-only buffers without
// pointers (transcripts.go, eventlog.go): a stored turn is a few objects,
// most of which the garbage collector does not have to look into. The transports' schemas
// are parts with a lock each: A2A tasks (tasks.go), AG-UI thread records
// (threads.go) and the relay (relay.go and relay_*.go, by concept).
//
// Nothing is encoded on the hot path: byte slices the caller passes in are
// copied once when stored, and the slices the store returns (receipts,
// events, messages, state values, asset content) are the stored ones. A
// caller must not modify a returned slice.
//
// Expiry is real: receipts, event logs, leases and waits expire by the
// store's clock. A read never sees an expired thing, and a pass every
// second drops them so that their memory is returned (expiry.go).
//
// Close ends it: every operation returns ErrClosed from then on, as every
// call of a closed Redis client fails (store.go).
package memstore
