package redisstore

import (
	"context"
	"strconv"
	"strings"
	"time"

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
	// begin.go, commit.go, response.go, transcript.go, waits.go, asset.go, tasks.go
	beginScript, commitScript, renewScript, readTranscriptScript, resolveWaitScript, finishWaitScript, reserveScript, putTaskScript,
	// relay_participants.go, relay_items.go, relay_limits.go
	exchangeScript, setStateScript, enqueueScript, replyScript, cancelScript, bucketScript, spacingScript,
	// router.go
	routerCountScript, routerAdmitScript, routerReportScript, routerReceiptScript,
	windowScript, slotScript, // limits.go
	outboxEnqueueScript, outboxClaimScript, outboxCompleteScript, outboxRetryScript, putPushScript, // outbox.go, pushconfigs.go
	beginCallScript, decideScript, claimScript, finishScript, // relay_tools_calls.go
	appendScript, claimRunScript, forgetReplicaScript, // events.go, runs.go, replicas.go
	recordPointScript,                     // journal.go
	spendAttemptScript, markHandOffScript, // attempts.go
	queueScript, startQueuedScript, cancelQueuedScript, // queue.go
	appendSteerScript, takeSteersScript, // steers.go
	createScheduleScript, updateScheduleScript, deleteScheduleScript, claimFireScript, takeFireScript, fireStartedScript, // schedules.go
	saveCompactionScript,                                                      // compactions.go
	putMemoryScript, deleteMemoryScript, listMemoryScript, searchMemoryScript, // memory*.go
	usageScript, usageMarkScript, // usage.go
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
		if isNoScript(c.Err()) {
			return true
		}
	}
	return false
}

// finalReceiptLua defines finished(receiptKey, logKey) for the scripts
// that must not write over a final receipt: the response's receipt is
// final, or the response was written in one step (its log is then a plain
// string holding its final receipt, events.go). Receipts are compact JSON
// whose first "status" key is the envelope's (IDs in it before are
// escaped strings), so isFinal takes the status after the first
// "status":" as the receipt's, as store.IsFinalReceipt reads it.
const finalReceiptLua = `
local function isFinal(receipt)
  local _, e = string.find(receipt, '"status":"', 1, true)
  if not e then return false end
  local status = string.match(receipt, '^(%a+)"', e + 1)
  return status == 'completed' or status == 'failed' or status == 'cancelled' or status == 'denied'
end
local function finished(receiptKey, logKey)
  local receipt = redis.call('GET', receiptKey)
  if receipt and isFinal(receipt) then return true end
  return redis.call('TYPE', logKey).ok == 'string'
end
`

// fencedLua defines fenced(epochKey, epoch): a write of attempt epoch (a
// decimal string, at least 1) is refused because the run's epoch is
// another. A missing key is the first attempt, 1 (store.Claim).
const fencedLua = `
local function fenced(epochKey, epoch)
  return (redis.call('GET', epochKey) or '1') ~= epoch
end
`

// epochArg is a writer's epoch as fencedLua compares it (0 is taken as 1).
func epochArg(epoch int) string { return strconv.Itoa(max(epoch, 1)) }

// argList holds the arguments of one or more commands in a single slice,
// each encoded once. Strings and numbers go in as pointers into the
// list's own slices, which go-redis writes as the values they point to: a
// string or an int64 put in an interface costs an allocation each, a
// pointer none. (When a slice grows, the pointers into its old array still
// read the same values; sizing the slices up front only saves that copy.)
type argList struct {
	args []any
	strs []string
	nums []int64
}

// newArgList has room for args arguments, strs strings and nums int64s.
func newArgList(args, strs, nums int) argList {
	return argList{args: make([]any, 0, args), strs: make([]string, 0, strs), nums: make([]int64, 0, nums)}
}

// str adds a string argument.
func (a *argList) str(v string) {
	a.strs = append(a.strs, v)
	a.args = append(a.args, &a.strs[len(a.strs)-1])
}

// num adds a number argument.
func (a *argList) num(v int64) {
	a.nums = append(a.nums, v)
	a.args = append(a.args, &a.nums[len(a.nums)-1])
}

// bytes adds an argument sent as it is (a receipt, a message, JSON).
func (a *argList) bytes(v []byte) { a.args = append(a.args, v) }

// word adds an argument that is a constant of the code (a command's name,
// an option): a constant string in an interface costs no allocation.
func (a *argList) word(v string) { a.args = append(a.args, v) }

// scriptCall is one EVALSHA command built in one argList: the script's
// digest, its keys, then its arguments. The hot path (begin, commit)
// builds its scripts' calls this way rather than through
// redis.Script.Run, which copies keys and arguments into a new slice. Add
// every key before the first argument.
type scriptCall struct {
	argList
	keys int
}

// newScriptCall starts a call of sc with room for the given numbers of
// strings (keys included) and int64s; byte slices need no room.
func newScriptCall(sc *redis.Script, strs, nums int) scriptCall {
	c := scriptCall{argList: newArgList(3+strs+nums+4, 1+strs, nums)}
	c.args = append(c.args, "evalsha", nil, 0)
	c.strs = append(c.strs, sc.Hash())
	c.args[1] = &c.strs[0]
	return c
}

// key adds one of the script's KEYS.
func (c *scriptCall) key(k string) {
	c.str(k)
	c.keys++
	c.args[2] = c.keys
}

// runScript sends the call in one round trip. When Redis answers NOSCRIPT
// (it forgot the scripts: a restart, a failover, SCRIPT FLUSH) the scripts
// are loaded again and the call is sent once more; a script that failed
// with NOSCRIPT did not run, so nothing is applied twice.
func (s *Store) runScript(ctx context.Context, c scriptCall) *redis.Cmd {
	cmd := s.sendScript(ctx, c)
	if isNoScript(cmd.Err()) {
		if err := s.loadScripts(ctx); err != nil {
			cmd.SetErr(err)
			return cmd
		}
		cmd = s.sendScript(ctx, c)
	}
	return cmd
}

// sendScript sends the call: on its own on a Cluster, and otherwise with
// the scripts of concurrent turns in one round trip (round_trips.go).
func (s *Store) sendScript(ctx context.Context, c scriptCall) *redis.Cmd {
	cmd := redis.NewCmd(ctx, c.args...)
	if c.keys > 0 {
		cmd.SetFirstKeyPos(3) // a Cluster client routes the call by KEYS[1]
	}
	if s.clustered {
		_ = s.rdb.Process(ctx, cmd)
		return cmd
	}
	err := s.scripts.do(ctx, s.rdb, func(p redis.Pipeliner) { _ = p.Process(ctx, cmd) })
	if err != nil && cmd.Err() == nil {
		cmd.SetErr(err)
	}
	return cmd
}

func isNoScript(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") }

// millis is d in whole milliseconds for PX and PEXPIRE, as go-redis sends
// a duration: a positive d under a millisecond is 1, so that it still
// expires rather than lasting forever or being refused.
func millis(d time.Duration) int64 {
	if d > 0 && d < time.Millisecond {
		return 1
	}
	return d.Milliseconds()
}
