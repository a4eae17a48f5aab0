package runtime

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/harnest/harnest/store"
)

// renewer keeps the session leases of this replica's running responses.
// One goroutine for the whole service wakes every sixth of the lease and
// extends the hold of each response whose hold is a third of the lease
// old, at most renewParallel at once; a failed renewal is tried again at
// the next wake. A response is renewed from the start of its run (also
// while it waits for a run slot) until its final step is recorded. A turn
// shorter than a third of the lease costs a map entry (a timer per
// response cost an allocation and two timer-heap operations on every
// turn). The goroutine ends when no response is held and starts again
// with the next one.
type renewer struct {
	mu      sync.Mutex
	held    map[*Response]heldLease
	running bool          // the goroutine runs
	quit    chan struct{} // closed by stop
	stopped bool
}

// heldLease is what the renewer knows of one response's hold.
type heldLease struct {
	renewed  time.Time // when the hold was taken or last extended
	renewing bool      // a renewal is in flight
}

// renewParallel bounds the renewals in flight at once.
const renewParallel = 16

// add starts renewing r's lease, which was taken at now.
func (w *renewer) add(r *Response, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held == nil {
		w.held = map[*Response]heldLease{}
		w.quit = make(chan struct{})
	}
	w.held[r] = heldLease{renewed: now}
	if !w.running && !w.stopped {
		w.running = true
		go w.loop(r.svc)
	}
}

// remove stops renewing r's lease. A renewal in flight may still land; the
// store extends a hold only for the response that holds it.
func (w *renewer) remove(r *Response) {
	w.mu.Lock()
	delete(w.held, r)
	w.mu.Unlock()
}

// stop ends the goroutine; nothing is renewed after it.
func (w *renewer) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped && w.quit != nil {
		close(w.quit)
	}
	w.stopped = true
}

// loop wakes every sixth of the lease and renews what is due, until stop
// or until no response is held.
func (w *renewer) loop(s *Service) {
	tick := time.NewTicker(s.lease / 6)
	defer tick.Stop()
	slots := make(chan struct{}, renewParallel)
	for {
		select {
		case <-w.quit:
			return
		case <-tick.C:
		}
		due, idle := w.due(time.Now(), s.lease/3)
		if idle {
			return
		}
		for _, r := range due {
			select {
			case slots <- struct{}{}:
			case <-w.quit:
				return
			}
			go func() {
				defer func() { <-slots }()
				w.renew(r)
			}()
		}
	}
}

// due returns the responses whose hold is age old at now and marks them
// renewing; idle is true (and the goroutine is marked ended) when no
// response is held.
func (w *renewer) due(now time.Time, age time.Duration) (due []*Response, idle bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.held) == 0 {
		w.running = false
		return nil, true
	}
	for r, h := range w.held {
		if !h.renewing && now.Sub(h.renewed) >= age {
			h.renewing = true
			w.held[r] = h
			due = append(due, r)
		}
	}
	return due, false
}

// renew extends r's hold once.
func (w *renewer) renew(r *Response) {
	s := r.svc
	started := time.Now()
	ok, err := true, error(nil)
	if r.inStore.Load() { // else no lease is held yet (see Response.begin)
		ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
		ok, err = s.store.RenewLease(ctx, r.turn.UserID, r.SessionID, r.ID, s.replica, r.epoch, s.lease)
		cancel()
	}
	if errors.Is(err, store.ErrFenced) {
		r.fenced()
		w.remove(r)
		return
	}
	if err == nil && !ok {
		s.log.Warn("response lost its session lease", "responseId", r.ID)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if h, ok := w.held[r]; ok {
		h.renewing = false
		if err == nil {
			h.renewed = started
		}
		w.held[r] = h
	}
}
