package a2a

import (
	"context"
	"sync"
)

// A feed hands a running task's updates from the goroutine that folds them
// to the caller that streams or waits for them.

// feed is the A2A events of one task segment run from this replica, for
// the local callers that watch it: a stream, or a blocking send that waits
// for the end. The run goes on when they leave.
type feed struct {
	first  Task // the task as the segment began; never changes
	mu     sync.Mutex
	events []StreamEvent
	done   bool
	last   Task
	wake   chan struct{}
}

func newFeed(first Task) *feed {
	t := first.clone()
	return &feed{first: t, events: []StreamEvent{{Task: &t}}, wake: make(chan struct{})}
}

func (f *feed) push(e StreamEvent) {
	f.mu.Lock()
	f.events = append(f.events, e)
	close(f.wake)
	f.wake = make(chan struct{})
	f.mu.Unlock()
}

func (f *feed) close(last Task) {
	f.mu.Lock()
	f.done, f.last = true, last.clone()
	close(f.wake)
	f.wake = make(chan struct{})
	f.mu.Unlock()
}

// each calls fn for every event in order until the segment ends, fn fails
// or ctx ends.
func (f *feed) each(ctx context.Context, fn func(StreamEvent) error) error {
	for i := 0; ; {
		f.mu.Lock()
		batch, done, wake := f.events[i:], f.done, f.wake
		f.mu.Unlock()
		for _, e := range batch {
			if err := fn(e); err != nil {
				return err
			}
		}
		i += len(batch)
		if done {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wait returns the task at the end of the segment.
func (f *feed) wait(ctx context.Context) (Task, error) {
	for {
		f.mu.Lock()
		done, last, wake := f.done, f.last, f.wake
		f.mu.Unlock()
		if done {
			return last, nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return Task{}, ctx.Err()
		}
	}
}
