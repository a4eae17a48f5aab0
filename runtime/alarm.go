package runtime

import (
	"sync"
	"sync/atomic"
	"time"
)

// alarm is a timer that calls its set's action on the response it is
// armed for: a segment's deadline (which cancels the response) and the
// flush of its pending events. Alarms are pooled: nearly every turn ends
// long before its deadline and its first flush, and a fresh timer and its
// function per turn were garbage on every turn.
type alarm struct {
	timer  *time.Timer
	set    *alarmSet
	target atomic.Pointer[Response] // the response it is armed for
}

// alarmSet is a pool of alarms with one action.
type alarmSet struct {
	action func(*Response)
	pool   sync.Pool
}

var (
	// deadlineAlarms cancel a response whose segment's deadline passed.
	deadlineAlarms = newAlarmSet((*Response).deadlinePassed)
	// flushAlarms write a response's pending events for followers.
	flushAlarms = newAlarmSet((*Response).flush)
)

func newAlarmSet(action func(*Response)) *alarmSet {
	s := &alarmSet{action: action}
	s.pool.New = func() any {
		a := &alarm{set: s}
		a.timer = time.AfterFunc(time.Hour, a.fire)
		a.timer.Stop()
		return a
	}
	return s
}

// arm returns an alarm of the set that acts on r after d.
func (s *alarmSet) arm(r *Response, d time.Duration) *alarm {
	a := s.pool.Get().(*alarm)
	a.target.Store(r)
	a.timer.Reset(d)
	return a
}

// fire acts on the response the alarm is armed for.
func (a *alarm) fire() {
	if r := a.target.Load(); r != nil {
		a.set.action(r)
	}
}

// disarm stops the alarm. One that was stopped before it fired goes back
// to its pool (its action will not run); one that fired is left to the
// collector, since its action may still be running.
func (a *alarm) disarm() {
	if a.timer.Stop() {
		a.target.Store(nil)
		a.set.pool.Put(a)
	}
}
