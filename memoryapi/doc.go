// Package memoryapi is the door of long-term memory: the /memory routes
// over internal/memory. A user reads and writes only their own memory; an
// agent's owner (Options.IsOwner) may name any user with ?user=, as on
// the schedules' routes. Someone else's item is 404, as anything a user
// does not own.
//
//	PUT    /memory/{namespace}/{key}  store an item: {"value", "text"?, "ttlSeconds"?}
//	GET    /memory/{namespace}/{key}  read it
//	DELETE /memory/{namespace}/{key}  delete it (204)
//	GET    /memory/{namespace}        list, in key order, ?cursor=&limit= (1..100)
//	POST   /memory/search             {"query", "namespace"?, "limit"?}: the best items first, with their scores
//
// Bad input is 400 with a code that names the refused field
// (invalid_namespace, invalid_value …) and changes nothing.
package memoryapi
