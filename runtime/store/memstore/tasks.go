package memstore

import "time"

// tasksSpace is the in-process store's tasks part (stub until its schema
// moves into the store).
type tasksSpace struct{}

func newTasksSpace(now func() time.Time, ttl time.Duration) *tasksSpace {
	return &tasksSpace{}
}

// sweep drops what expired before now.
func (p *tasksSpace) sweep(now time.Time) {}

// close stops the part's goroutines, if any.
func (p *tasksSpace) close() {}
