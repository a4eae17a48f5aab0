package redisstore

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// On a Cluster, go-redis keeps a slot map (which master serves which slot)
// and reloads it when a node answers MOVED or ASK, or else a minute after
// its last load. When a master dies, the cluster promotes its replica a
// few seconds later, but nothing tells the client: its calls to the dead
// master fail at dial, and with no redirects allowed (newClient) it never
// meets the MOVED that would make it reload. The dead master's slots, and
// the control channels when they were there, stayed unavailable for up to
// a minute after the cluster had recovered.
//
// So every node client of a Cluster client carries a slotMapReloader: when
// a call to a node fails in a way that says the slot map may be stale, it
// asks for a reload. Every way to a node goes through a node client, so
// this covers commands, pipelines, a transaction on one node (watchOn) and
// the pub/sub connections of the hub, which dial their slot's master again
// until it answers. The call that failed is not sent again: its outcome
// may be unknown (a write may have run), so its error reaches the caller (a
// 503 store_unavailable) as before, and the caller may read the receipt and
// try again. Calls after the reload go to the promoted master.

// slotMapReloadPause is the least time between two reloads the store asks
// for. While the cluster has not yet promoted a replica, every reload
// still finds the dead master and the failed calls go on asking; go-redis
// also runs one reload at a time and waits 200 ms after a successful one.
const slotMapReloadPause = 100 * time.Millisecond

// slotMapReloader asks its Cluster client to reload its slot map when a
// node fails a call as one that is gone, or says that slots moved.
type slotMapReloader struct {
	cluster *redis.ClusterClient
	last    atomic.Int64 // when the last reload was asked for, in Unix nanoseconds
}

// followFailovers makes cluster reload its slot map soon after a node
// fails (see above); call it before the client sends anything.
func followFailovers(cluster *redis.ClusterClient) {
	r := &slotMapReloader{cluster: cluster}
	cluster.OnNewNode(func(node *redis.Client) { node.AddHook(r) })
}

// reload asks for a reload in the background, unless one was asked for
// less than slotMapReloadPause ago.
func (r *slotMapReloader) reload() {
	now := time.Now().UnixNano()
	last := r.last.Load()
	if now-last < int64(slotMapReloadPause) || !r.last.CompareAndSwap(last, now) {
		return
	}
	r.cluster.ReloadState(context.Background())
}

func (r *slotMapReloader) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil && !errors.Is(err, context.Canceled) {
			r.reload() // the node is gone, or unreachable
		}
		return conn, err
	}
}

func (r *slotMapReloader) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if slotMapMayBeStale(err) {
			r.reload()
		}
		return err
	}
}

func (r *slotMapReloader) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		stale := slotMapMayBeStale(err)
		for _, cmd := range cmds {
			stale = stale || slotMapMayBeStale(cmd.Err())
		}
		if stale {
			r.reload()
		}
		return err
	}
}

// slotMapMayBeStale reports whether a node's failure says that the slot
// map may no longer be right: the node could not be reached or did not
// answer (it may be dead, or hung until the cluster fails it over), or it
// answered that the cluster's slots or roles changed. A caller's own
// cancellation and ordinary errors (a script's, a missing key) do not.
func slotMapMayBeStale(err error) bool {
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var reply redis.Error
	if errors.As(err, &reply) {
		for _, prefix := range staleMapReplies {
			if strings.HasPrefix(reply.Error(), prefix) {
				return true
			}
		}
	}
	return false
}

// staleMapReplies start the error replies of a node whose slots or role
// changed: it no longer serves the slot (MOVED, ASK), the cluster is
// failing over (CLUSTERDOWN, TRYAGAIN), or it is a replica now (READONLY,
// MASTERDOWN, LOADING).
var staleMapReplies = []string{"MOVED ", "ASK ", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "MASTERDOWN", "LOADING"}
