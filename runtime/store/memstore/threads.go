package memstore

import "time"

// threadsSpace is the in-process store's threads part (stub until its schema
// moves into the store).
type threadsSpace struct{}

func newThreadsSpace(now func() time.Time, ttl time.Duration) *threadsSpace {
	return &threadsSpace{}
}

// sweep drops what expired before now.
func (p *threadsSpace) sweep(now time.Time) {}

// close stops the part's goroutines, if any.
func (p *threadsSpace) close() {}
