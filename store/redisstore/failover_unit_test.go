package redisstore

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// replyError is an error reply of a Redis node, as go-redis gives it.
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

var _ redis.Error = replyError("")

// TestSlotMapMayBeStale: which failures of a node make a Cluster client
// reload its slot map (failover.go).
func TestSlotMapMayBeStale(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, c := range []struct {
		name  string
		err   error
		stale bool
	}{
		{"no error", nil, false},
		{"missing key", redis.Nil, false},
		{"caller cancelled", context.Canceled, false},
		{"script error", replyError("ERR user_script:1: oops"), false},
		{"wrong type", replyError("WRONGTYPE Operation against a key holding the wrong kind of value"), false},
		{"transaction aborted by WATCH", redis.TxFailedErr, false},
		{"dial refused", refused, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"connection closed", io.EOF, true},
		{"deadline", context.DeadlineExceeded, true},
		{"wrapped by the store", fmt.Errorf("store: patch session: %w", refused), true},
		{"moved", replyError("MOVED 3999 127.0.0.1:6381"), true},
		{"ask", replyError("ASK 3999 127.0.0.1:6381"), true},
		{"cluster down", replyError("CLUSTERDOWN The cluster is down"), true},
		{"try again", replyError("TRYAGAIN Multiple keys request during rehashing of slot"), true},
		{"now a replica", replyError("READONLY You can't write against a read only replica."), true},
		{"master down", replyError("MASTERDOWN Link with MASTER is down"), true},
		{"loading", replyError("LOADING Redis is loading the dataset in memory"), true},
	} {
		if got := slotMapMayBeStale(c.err); got != c.stale {
			t.Errorf("%s (%v): stale=%v, want %v", c.name, c.err, got, c.stale)
		}
	}
}
