// Package redisstore keeps harnest's state in Redis through go-redis: a
// single node, Sentinel or Cluster (see Open for the URL forms). It
// implements store.Store with the same meaning as the in-process store
// (memstore), which the contract suite (storetest) checks on both.
//
// Open with an empty URL runs on an embedded miniredis in this process,
// reached through an in-memory pipe, with the same commands and Lua
// scripts. Only tests use it (they count commands, move its clock); the
// zero-setup default is memstore, which stores.Open picks when no URL is
// configured.
//
// Keys that a script or a transaction touches together share a hash tag
// (one slot on a Cluster): everything of one session lives under
// {s:<user>:<session>}; a user's session index, asset byte counter and
// wait index under {u:<user>}; a user's A2A tasks under {a2a:<user>}; the
// relay under {relay}; the run registry under {runs}. IDs are escaped
// (keys.go) so that no user or session ID can forge another key.
//
// Files, by concept: open.go (options, clients, timeouts), keys.go,
// scripts.go (every Lua script, loaded at Open), session.go, response.go
// (begin, commit, receipts, leases, transcripts), events.go, runs.go
// (the sweeper's registry), waits.go, asset.go, secret.go, hub.go (pub/sub:
// control messages and event wake-ups), ping.go, tasks.go, threads.go,
// relay.go (the relay's keys and wake-ups), relay_participants.go,
// relay_items.go, relay_limits.go, relay_feed.go, and mempipe.go (the
// embedded miniredis's connections).
package redisstore
