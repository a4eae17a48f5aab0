package runtime

import "sync/atomic"

// runners run responses on goroutines that are kept after a response ends,
// up to maxIdle of them, so that the next response starts on a goroutine
// whose stack has already grown to what a turn needs. A fresh goroutine
// per response started small and grew (copied) its stack during every
// turn: close to a tenth of a JSON turn's CPU.
type runners struct {
	jobs    chan *Response
	idle    atomic.Int32
	maxIdle int32
	stopped atomic.Bool
}

func newRunners(maxIdle int) *runners {
	return &runners{jobs: make(chan *Response), maxIdle: int32(maxIdle)}
}

// run runs r on an idle runner, or on a new goroutine when none is idle.
func (p *runners) run(r *Response) {
	select {
	case p.jobs <- r:
	default:
		go p.work(r)
	}
}

// work runs r, then waits for the next response while fewer than maxIdle
// runners wait, until stop.
func (p *runners) work(r *Response) {
	for r != nil {
		r.run()
		if p.stopped.Load() || p.idle.Add(1) > p.maxIdle {
			p.idle.Add(-1)
			return
		}
		r = <-p.jobs // nil once stop closed the channel
		p.idle.Add(-1)
	}
}

// stop ends the idle runners; run must not be called after it (the
// service stops runners only once no response can start).
func (p *runners) stop() {
	if p.stopped.CompareAndSwap(false, true) {
		close(p.jobs)
	}
}

// maxIdleRunners bounds the goroutines kept for the next responses.
const maxIdleRunners = 64
