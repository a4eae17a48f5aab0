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
// A turn is two round trips, one Lua script each (begin.go, commit.go):
// the begin takes the lease, writes the receipt and reads the state; the
// commit checks the lease and writes the step. Their bookkeeping outside
// the session (the run registry, the user's indexes) is in the same
// script on a single node or Sentinel, and in steps of its own on a
// Cluster. A JSON turn that makes a new session is one round trip: its
// only step makes the session too, as a transaction of plain commands
// (commit_new.go), and concurrent ones share one transaction per round
// trip (round_trips.go); concurrent turns' scripts share a round trip
// the same way, as one pipeline. A response's event log is a sorted set
// of batches, and its receipt a key of its own; a new session's one-step
// turn keeps both in one plain string instead (events.go). A session's
// meta hash holds its
// responses and its transcript, a field each (transcript.go); sessions
// made before kept them in keys of their own, which are still read.
//
// Keys that a script or a transaction touches together share a hash tag
// (one slot on a Cluster): everything of one session lives under
// {s:<user>:<session>}; a user's session index, asset byte counter and
// wait index under {u:<user>}; a user's A2A tasks under {a2a:<user>}; the
// relay under {relay}; the run registry under {runs}. IDs are escaped
// (keys.go) so that no user or session ID can forge another key.
//
// On a Redis Cluster (Redis 7 or later) a deployment gets the whole store
// contract, with the same meaning as on one node, its sessions spread over
// the masters by user and session. What it does not get:
//
//   - The bookkeeping kept beside a session (the run registry, the user's
//     session index and wait index) is written in steps of their own, not
//     atomically with the session (cluster.go says in which order). After a
//     crash between two steps a new session may be missing from its user's
//     list, and a stale index entry or registered run may stay a while;
//     nothing a reader trusts is ever wrong.
//   - A turn costs a few more round trips than the single node's two (the
//     begin and commit scripts): the register, index and forget steps
//     each add one.
//   - The run registry, the relay, the router and the control channels
//     are one slot each, so one master carries each of them; event
//     notifications are plain pub/sub, which a Cluster sends to every node.
//   - A call that meets MOVED or ASK while slots move (resharding), or
//     that cannot reach a master that died, fails (store_unavailable) and
//     the client reloads its slot map at once (failover.go); go-redis does
//     not follow the redirect nor send the call again (see newClient).
//     After a master dies, its slots fail until the cluster has promoted
//     its replica (a few seconds, after cluster-node-timeout), and serve
//     again a moment later. When the control channels' slot moves, or
//     their master dies, every replica subscribes again on the new master
//     (hub_sharded.go); until then they miss control messages, and an
//     answer meant for one is refused as if its replica had stopped.
//   - Reads are served by masters only; replica nodes are not read from.
//
// Files, by concept: open.go (options, clients, timeouts), keys.go,
// cluster.go (transactions that keep to one slot, and the bookkeeping
// beside them), failover.go (a Cluster's slot map reloaded when a node
// fails), scripts.go (every Lua script, loaded at Open, and how the
// turn's scripts are called), session.go, begin.go and commit.go (a
// response's begin and its steps), commit_new.go and round_trips.go (a
// new session's one-step turn, and those sent together), response.go
// (receipts, leases), transcript.go (a session's messages, fields of its
// meta), events.go,
// runs.go (the sweeper's registry), waits.go, asset.go, secret.go, hub.go
// (pub/sub: control messages and event wake-ups), hub_sharded.go (a
// Cluster's sharded control channels), ping.go, tasks.go, threads.go,
// relay.go (the relay's keys and wake-ups), relay_participants.go,
// relay_items.go, relay_limits.go, relay_feed.go, and mempipe.go (the
// embedded miniredis's connections).
package redisstore
