// Package store keeps harnest's state in Redis: sessions and their state,
// transcripts, response receipts and their event logs, and the execution
// lease that lets one turn at a time run in a session.
//
// Open with an empty URL starts an embedded in-process Redis (miniredis),
// reached through an in-memory pipe; with a URL it connects to a real Redis
// (a single node, Sentinel or Cluster) through go-redis. Both take the same
// code path: the same commands and the same Lua scripts.
//
// Keys that a script touches together share a hash tag: everything of one
// session lives under {s:<user>:<session>}; a user's session index lives
// under {u:<user>}. IDs are escaped so that no user or session ID can forge
// another key.
package redisstore
