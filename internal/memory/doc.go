// Package memory is long-term memory as its two users see it: the
// /memory routes (memoryapi) and the model backend's memory tools. It
// checks what a caller asks for (namespaces, keys, values, TTLs, queries:
// a *FieldError names the field), embeds items and queries when the agent
// configures an embeddings endpoint (embedder.go), and calls the store's
// Memory slice in the caller's scope: the agent's name and the user.
//
// A Service is made once per replica with New; its methods may be called
// from many goroutines.
package memory
