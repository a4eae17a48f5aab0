// Package gcfloor keeps the Go collector from running while the heap is
// small: after each collection it raises GOGC just enough that the next
// one waits until the heap reaches a floor (64 MiB for "harnest serve"),
// and leaves GOGC as the process set it once the live heap is past half
// the floor.
//
// A replica on Redis keeps a few megabytes live (its state is in Redis),
// so with GOGC=100 the collector ran every ~4 MB of garbage: about 50
// times a second under load, each time scanning every goroutine's stack,
// for about a tenth of the server's CPU. (A replica on the in-process
// store soon holds far more than the floor; cmd/harnest sets none for it.)
//
// The cost is memory: up to the floor in garbage, and goroutine stacks
// that grew stay grown until a collection shrinks them.
//
// GOMEMLIMIT still bounds the heap (the runtime's limit wins over any
// GOGC); a GOGC set by the operator turns the floor off (cmd/harnest).
package gcfloor
