// Package turnbench measures what one turn costs inside harnest: the
// allocations (and time) of a JSON turn, an SSE turn of the echo agent and
// an SSE turn of 20 text deltas, through the whole server that
// cmd/harnest serves (server.New), on every store the tests use.
//
// A turn is one POST /responses handed to the server's http.Handler with an
// in-memory recorder: everything harnest does from the parsed request to
// the written answer is counted, net/http's connection handling and any
// client are not. Run:
//
//	go test -run '^$' -bench Turn -benchmem ./bench/turnbench/
package turnbench
