// Package memstore is the in-process store: everything harnest keeps, held
// in this process's memory as native Go data, with the same meaning as the
// Redis store (redisstore) operation by operation. It is the zero-setup
// default: state lasts as long as the process, and several replicas
// (runtime services) in one process may share one Store, each with its own
// hub.
//
// Layout: a session's data (its state, transcript, lease, responses with
// their receipts and event logs, waits and assets) lives in one of 64
// shards, chosen by a hash of the user and session IDs and guarded by the
// shard's lock. A user's session index (an ordered B-tree, for keyset
// pages), asset byte counter and wait index have their own lock; so do the
// run registry, the shared secrets and the hubs. A shard lock may be held
// while one of those is taken, never the other way round.
//
// Nothing is encoded on the hot path: byte slices the caller passes in are
// copied once when stored, and the slices the store returns (receipts,
// events, messages, state values, asset content) are the stored ones. A
// caller must not modify a returned slice.
//
// Expiry is real: receipts, event logs, leases and waits expire by the
// store's clock. A read never sees an expired thing, and a pass every
// second drops them so that their memory is returned.
package memstore
