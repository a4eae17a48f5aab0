//go:build pprof

package main

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // its handlers, on http.DefaultServeMux
	"os"
)

// Built with -tags pprof, harnest serves Go's runtime profiles
// (net/http/pprof) on HARNEST_PPROF_ADDR, a loopback host:port. bench/pgo.sh
// builds it so to record the CPU profile that default.pgo is; other builds
// do not have it.
func init() {
	addr := os.Getenv("HARNEST_PPROF_ADDR")
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(os.Stderr, "harnest: HARNEST_PPROF_ADDR %q is not a loopback host:port; profiles are not served\n", addr)
		return
	}
	go func() {
		if err := http.ListenAndServe(addr, nil); err != nil {
			fmt.Fprintf(os.Stderr, "harnest: serving profiles on %s: %v\n", addr, err)
		}
	}()
}
