package runtime

import (
	"context"
	"sync"
	"time"
)

// admission admits at most slots runs at once, shared by every transport.
// Runs that find every slot taken wait, and a slot that frees goes to the
// waiting user with the fewest running runs (the oldest waiter among them),
// so one user's many turns cannot starve another user's one. It also bounds
// what waits: at most maxQueued runs in all, and at most maxPerUser running
// plus waiting runs of one user. A new turn past either bound is refused at
// once (ErrRateLimited) before anything is stored; a resumed turn (after an
// approval or a client tool) was already accepted and is never refused.
type admission struct {
	slots, maxQueued, maxPerUser int

	mu      sync.Mutex
	running int
	queued  int // reserved and waiting tickets
	waiting int // waiting tickets: those in the users' waiting lists
	seq     uint64
	users   map[string]*userShare
}

// userShare is one user's running runs and waiting tickets.
type userShare struct {
	running  int
	reserved int       // tickets taken by StartResponse, not yet waiting or running
	waiting  []*ticket // in arrival order
}

// ticket is one run's place: reserved by StartResponse, then waiting for a
// slot, then running until released.
type ticket struct {
	a      *admission
	user   string
	seq    uint64
	ready  chan struct{} // made when the ticket waits; closed when it is given a slot
	queued bool          // counted in a.queued (reserved or waiting)
	state  ticketState
}

type ticketState int

const (
	ticketReserved ticketState = iota
	ticketWaiting
	ticketRunning
	ticketDone
)

// errBusy is the refusal of a turn past the server's queue or the user's
// share; Retry-After says when to try again.
func errBusy(detail string) *Error {
	return &Error{Kind: ErrRateLimited, Code: "too_many_requests", Detail: detail, RetryAfter: time.Second}
}

func newAdmission(slots, maxQueued, maxPerUser int) *admission {
	if slots < 1 {
		slots = 8
	}
	if maxQueued < 1 {
		maxQueued = 1000
	}
	if maxPerUser < 1 {
		maxPerUser = 64
	}
	return &admission{slots: slots, maxQueued: maxQueued, maxPerUser: maxPerUser, users: map[string]*userShare{}}
}

// reserve takes a place for a new run of user, or refuses it when the
// server's queue or the user's share is full.
func (a *admission) reserve(user string) (*ticket, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	u := a.share(user)
	if u.running+u.reserved+len(u.waiting) >= a.maxPerUser {
		a.forget(user, u)
		return nil, errBusy("You have too many responses running or waiting; wait for one to finish, then retry")
	}
	if a.running+a.queued >= a.slots+a.maxQueued {
		a.forget(user, u)
		return nil, errBusy("The server has too many responses waiting; retry shortly")
	}
	u.reserved++
	a.queued++
	a.seq++
	return &ticket{a: a, user: user, seq: a.seq, queued: true}, nil
}

// resume takes a place for a run that continues after a suspension; it is
// never refused.
func (a *admission) resume(user string) *ticket {
	a.mu.Lock()
	defer a.mu.Unlock()
	u := a.share(user)
	u.reserved++
	a.queued++
	a.seq++
	return &ticket{a: a, user: user, seq: a.seq, queued: true}
}

// acquire waits for a slot until ctx ends. On error the ticket is given up.
func (t *ticket) acquire(ctx context.Context) error {
	a := t.a
	a.mu.Lock()
	u := a.share(t.user)
	u.reserved--
	if a.waiting == 0 && a.running < a.slots {
		// A free slot and nobody before it: the ticket runs at once, as
		// dispatch would decide, without waiting.
		u.running++
		a.running++
		a.unqueue(t)
		t.state = ticketRunning
		a.mu.Unlock()
		return nil
	}
	t.state = ticketWaiting
	t.ready = make(chan struct{})
	u.waiting = append(u.waiting, t)
	a.waiting++
	a.dispatch()
	a.mu.Unlock()

	select {
	case <-t.ready:
		return nil
	case <-ctx.Done():
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.state == ticketRunning { // a slot arrived as ctx ended: give it back
		a.releaseLocked(t)
		return ctx.Err()
	}
	a.removeWaiting(t)
	return ctx.Err()
}

// release frees the ticket's slot, or its reservation when it never ran.
func (t *ticket) release() {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	switch t.state {
	case ticketReserved:
		u := a.share(t.user)
		u.reserved--
		a.unqueue(t)
		t.state = ticketDone
		a.forget(t.user, u)
	case ticketWaiting:
		a.removeWaiting(t)
	case ticketRunning:
		a.releaseLocked(t)
	}
}

func (a *admission) releaseLocked(t *ticket) {
	u := a.share(t.user)
	u.running--
	a.running--
	t.state = ticketDone
	a.forget(t.user, u)
	a.dispatch()
}

func (a *admission) removeWaiting(t *ticket) {
	u := a.share(t.user)
	for i, w := range u.waiting {
		if w == t {
			u.waiting = append(u.waiting[:i], u.waiting[i+1:]...)
			a.waiting--
			break
		}
	}
	a.unqueue(t)
	t.state = ticketDone
	a.forget(t.user, u)
}

// dispatch gives free slots to waiters: each time to the user with the
// fewest running runs, the oldest waiter first among equals.
func (a *admission) dispatch() {
	for a.running < a.slots && a.waiting > 0 {
		var next *userShare
		for _, u := range a.users {
			if len(u.waiting) == 0 {
				continue
			}
			if next == nil || u.running < next.running ||
				(u.running == next.running && u.waiting[0].seq < next.waiting[0].seq) {
				next = u
			}
		}
		if next == nil {
			return
		}
		t := next.waiting[0]
		next.waiting = next.waiting[1:]
		a.waiting--
		next.running++
		a.running++
		a.unqueue(t)
		t.state = ticketRunning
		close(t.ready)
	}
}

func (a *admission) unqueue(t *ticket) {
	if t.queued {
		t.queued = false
		a.queued--
	}
}

func (a *admission) share(user string) *userShare {
	u := a.users[user]
	if u == nil {
		u = &userShare{}
		a.users[user] = u
	}
	return u
}

// forget drops a user's share once it holds nothing, so the map does not
// grow with every user ever seen.
func (a *admission) forget(user string, u *userShare) {
	if u.running == 0 && u.reserved == 0 && len(u.waiting) == 0 {
		delete(a.users, user)
	}
}
