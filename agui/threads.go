package agui

import (
	"context"
	"sync"

	"github.com/harnest/harnest/runtime/store"
)

// A thread record (store.ThreadRecord) remembers, per user and thread
// (session), the response the thread's last AG-UI run started, and which
// user message started it. It is how a later run finds what the thread
// waits for: the receipt of that response says requires_action and names
// the wait. The runtime has no "pending waits of a session" query; this
// record stands in for one, using exported APIs only (see doc.go).
//
// With a store, the records are the store's (store.Threads), shared by
// every replica and kept as long as receipts; without one, memoryThreads
// keeps them in this process.

// memoryThreads keeps records in this process: for a handler built without
// a store (one replica only).
type memoryThreads struct {
	mu   sync.Mutex
	recs map[[2]string]store.ThreadRecord
}

var _ store.Threads = (*memoryThreads)(nil)

// GetThread reads the user's record of a thread.
func (t *memoryThreads) GetThread(_ context.Context, user, thread string) (store.ThreadRecord, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rec, ok := t.recs[[2]string{user, thread}]
	return rec, ok, nil
}

// PutThread replaces the user's record of a thread.
func (t *memoryThreads) PutThread(_ context.Context, user, thread string, rec store.ThreadRecord) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.recs == nil {
		t.recs = map[[2]string]store.ThreadRecord{}
	}
	t.recs[[2]string{user, thread}] = rec
	return nil
}
