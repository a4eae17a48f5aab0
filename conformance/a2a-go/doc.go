// Package conformance drives harnest's A2A bindings with clients nobody
// here wrote: the a2a-go clients (github.com/a2aproject/a2a-go v0.3.15 for
// A2A 0.3 and github.com/a2aproject/a2a-go/v2 v2.3.1 for 1.0) and, through
// Node scripts in ../a2a-js, @a2a-js/sdk 1.3.0 and 0.3.14. It is a separate
// module so that harnest itself does not depend on them.
//
// Run: (cd conformance/a2a-go && go test ./...); benchmarks with
// go test -run '^$' -bench SendMessage.
package conformance
