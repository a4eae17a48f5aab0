package redisstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/harnest/harnest/store"
)

// scriptNames name the store's Lua scripts for a CommandObserver: a script
// is counted by its name rather than as "evalsha". A script without a name
// here is counted as "evalsha" (or "eval").
var scriptNames = map[*redis.Script]string{
	createSessionScript: "create_session", patchStateScript: "patch_state",
	deleteSessionScript: "delete_session", forgetSessionScript: "forget_session",
	beginScript: "begin_response", commitScript: "commit_response", renewScript: "renew_lease", readTranscriptScript: "read_transcript", resolveWaitScript: "resolve_wait", finishWaitScript: "finish_wait",
	reserveScript: "reserve_asset_bytes", putTaskScript: "put_task",
	exchangeScript: "relay_exchange", setStateScript: "relay_set_state", enqueueScript: "relay_enqueue",
	replyScript: "relay_reply", cancelScript: "relay_cancel", bucketScript: "relay_bucket", spacingScript: "relay_spacing",
	routerCountScript: "router_count", routerAdmitScript: "router_admit",
	routerReportScript: "router_report", routerReceiptScript: "router_receipt",
	windowScript: "limit_window", slotScript: "limit_slot",
	outboxEnqueueScript: "outbox_enqueue", outboxClaimScript: "outbox_claim", outboxCompleteScript: "outbox_complete",
	outboxRetryScript: "outbox_retry", putPushScript: "put_push_config",
}

// scriptNameBySHA is scriptNames by the SHA1 digest EVALSHA sends.
var scriptNameBySHA = func() map[string]string {
	m := make(map[string]string, len(scriptNames))
	for sc, name := range scriptNames {
		m[sc.Hash()] = name
	}
	return m
}()

// ObserveCommands makes the store report every command it sends from now
// on to o (store.ObservableStore), through a go-redis hook. Call it before
// the store is in use: the hook is not removed again.
func (s *Store) ObserveCommands(o store.CommandObserver) {
	if o == nil {
		return
	}
	kind := "redis"
	if s.embedded != nil {
		kind = "miniredis"
	}
	s.rdb.AddHook(commandHook{observer: o, store: kind})
}

// commandHook reports each command and round trip to a CommandObserver.
type commandHook struct {
	observer store.CommandObserver
	store    string // the store label: "redis" or "miniredis"
}

func (h commandHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h commandHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		name := commandName(cmd)
		h.observer.StoreRoundTrip(h.store, name, time.Since(start))
		failed := err // go-redis sets it on cmd only after the hooks
		if failed == nil {
			failed = cmd.Err()
		}
		h.observer.StoreCommand(h.store, name, failure(ctx, name, failed))
		return err
	}
}

func (h commandHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		took := time.Since(start)
		if len(cmds) == 1 {
			h.observer.StoreRoundTrip(h.store, commandName(cmds[0]), took)
		} else {
			h.observer.StoreRoundTrip(h.store, "pipeline", took)
		}
		for _, cmd := range cmds {
			name := commandName(cmd)
			h.observer.StoreCommand(h.store, name, failure(ctx, name, cmd.Err()))
		}
		return err
	}
}

// commandName is a command's name for the command label: a script by its
// name in scriptNames, anything else as go-redis names it (the command
// in lower case, "evalsha" for a script without a name). It never holds
// a key or a value.
func commandName(cmd redis.Cmder) string {
	name := cmd.Name()
	switch name {
	case "evalsha", "evalsha_ro":
		if sha, ok := argAt(cmd, 1); ok {
			if script, ok := scriptNameBySHA[sha]; ok {
				return script
			}
		}
	case "eval", "eval_ro": // Script.Run after NOSCRIPT sends the source
		if src, ok := argAt(cmd, 1); ok {
			digest := sha1.Sum([]byte(src)) // what redis.Script.Hash is
			if script, ok := scriptNameBySHA[hex.EncodeToString(digest[:])]; ok {
				return script
			}
		}
	}
	return name
}

// argAt is the command's argument i when it is a string (or a *string,
// as scriptCall sends them).
func argAt(cmd redis.Cmder, i int) (string, bool) {
	args := cmd.Args()
	if len(args) <= i {
		return "", false
	}
	switch s := args[i].(type) {
	case string:
		return s, true
	case *string:
		if s != nil {
			return *s, true
		}
	}
	return "", false
}

// failure is err unless it is not a failure of the store: a missing key
// (redis.Nil), a lost optimistic transaction (redis.TxFailedErr, retried
// by the store), a call its caller cancelled while the store was fine, or
// a refused handshake command: go-redis sends HELLO and CLIENT SETINFO
// when it opens a connection and goes on without them when a server
// (an older Redis, miniredis) does not know them.
func failure(ctx context.Context, command string, err error) error {
	switch {
	case err == nil, errors.Is(err, redis.Nil), errors.Is(err, redis.TxFailedErr):
		return nil
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return nil
	case (command == "hello" || command == "client") && isErrorReply(err):
		return nil
	}
	return err
}

// isErrorReply reports an error the server answered with (as opposed to
// one on the way: a timeout, a closed connection).
func isErrorReply(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply)
}
