package redisstore

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"
)

// scripts are every Lua script of the store, loaded at Open and again
// whenever Redis forgets them (restart, failover, SCRIPT FLUSH) and a
// pipeline meets NOSCRIPT. A script run on its own (Script.Run) loads
// itself when Redis does not know it; one run in a pipeline cannot, so
// every script is here, by the file that defines it.
var scripts = []*redis.Script{
	// session.go
	createSessionScript, patchStateScript, deleteSessionScript, forgetSessionScript,
	// response.go, waits.go, asset.go, tasks.go
	renewScript, resolveWaitScript, finishWaitScript, reserveScript, putTaskScript,
	// relay_participants.go, relay_items.go, relay_limits.go
	exchangeScript, setStateScript, enqueueScript, replyScript, cancelScript, bucketScript, spacingScript,
	// router.go
	routerCountScript, routerAdmitScript, routerReportScript, routerReceiptScript,
	windowScript, slotScript, // limits.go
	outboxEnqueueScript, outboxClaimScript, outboxCompleteScript, outboxRetryScript, putPushScript, // outbox.go, pushconfigs.go
	beginCallScript, decideScript, claimScript, finishScript, // relay_tools_calls.go
}

func (s *Store) loadScripts(ctx context.Context) error {
	for _, sc := range scripts {
		if err := sc.Load(ctx, s.rdb).Err(); err != nil {
			return err
		}
	}
	return nil
}

// pipelined runs fn's commands in one round trip. Scripts in a pipeline run
// by SHA only, so when Redis answers NOSCRIPT the scripts are loaded again
// and the pipeline is retried once; a script that failed with NOSCRIPT did
// not run, so the retry does not apply anything twice.
func (s *Store) pipelined(ctx context.Context, fn func(redis.Pipeliner)) error {
	run := func() ([]redis.Cmder, error) {
		return s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error { fn(p); return nil })
	}
	cmds, err := run()
	if err != nil && hasNoScript(cmds) {
		if lerr := s.loadScripts(ctx); lerr != nil {
			return lerr
		}
		_, err = run()
	}
	return err
}

func hasNoScript(cmds []redis.Cmder) bool {
	for _, c := range cmds {
		if err := c.Err(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			return true
		}
	}
	return false
}
