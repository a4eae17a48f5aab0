package memstore

import "time"

// relaySpace is the in-process store's relay part (stub until its schema
// moves into the store).
type relaySpace struct{}

func newRelaySpace(now func() time.Time, ttl time.Duration) *relaySpace {
	return &relaySpace{}
}

// sweep drops what expired before now.
func (p *relaySpace) sweep(now time.Time) {}

// close stops the part's goroutines, if any.
func (p *relaySpace) close() {}
