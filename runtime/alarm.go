package runtime

import (
	"sync"
	"sync/atomic"
	"time"
)

// alarm is a segment's deadline: a timer that cancels the response it is
// armed for (with errDeadline) when it fires. Alarms are pooled: nearly
// every turn ends long before its deadline, and a fresh timer and its
// function per segment were garbage on every turn.
type alarm struct {
	timer  *time.Timer
	target atomic.Pointer[Response] // the response it is armed for
}

var alarms = sync.Pool{New: func() any {
	a := &alarm{}
	a.timer = time.AfterFunc(time.Hour, a.fire)
	a.timer.Stop()
	return a
}}

// armAlarm returns an alarm that cancels r after d.
func armAlarm(r *Response, d time.Duration) *alarm {
	a := alarms.Get().(*alarm)
	a.target.Store(r)
	a.timer.Reset(d)
	return a
}

// fire cancels the response the alarm is armed for.
func (a *alarm) fire() {
	if r := a.target.Load(); r != nil {
		r.deadlinePassed()
	}
}

// disarm stops the alarm. One that was stopped before it fired goes back
// to the pool (its function will not run); one that fired is left to the
// collector, since its function may still be running.
func (a *alarm) disarm() {
	if a.timer.Stop() {
		a.target.Store(nil)
		alarms.Put(a)
	}
}
