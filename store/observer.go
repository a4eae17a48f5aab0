package store

import "time"

// CommandObserver is told of every command a store sends to its server,
// so that metrics can count them without the store knowing of any
// metrics library. A store calls it from its callers' goroutines: its
// method must be safe for concurrent use, return quickly and never block.
type CommandObserver interface {
	// StoreCommand is called once per command when its answer came (or
	// did not): store names the kind of store ("redis", "miniredis"),
	// command the command or script by a name from a small fixed set
	// ("get", "xadd", "evalsha", "create_session", ...; never a key or a
	// value), and err is the failure, nil when the command worked (a
	// missing key or a lost optimistic transaction is not a failure).
	StoreCommand(store, command string, err error)
	// StoreRoundTrip is called once per round trip to the server with how
	// long it took: command is the command's name for a single command,
	// "pipeline" for a pipeline or a transaction of several.
	StoreRoundTrip(store, command string, took time.Duration)
}

// ObservableStore is a store that can report its commands to a
// CommandObserver (the Redis store; the in-process store sends no
// commands and reports none).
type ObservableStore interface {
	// ObserveCommands makes the store report every command it sends from
	// now on to o.
	ObserveCommands(o CommandObserver)
}

// ObserveCommands makes st report its commands to o when st can, and
// reports whether it can. A nil o observes nothing.
func ObserveCommands(st Store, o CommandObserver) bool {
	obs, ok := st.(ObservableStore)
	if !ok || o == nil {
		return false
	}
	obs.ObserveCommands(o)
	return true
}
