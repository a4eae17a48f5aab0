package runtime

import (
	"context"
	"encoding/json"
	"sync"
)

// Doors talk between replicas over the same control channel as the
// runtime: a door that receives, on one replica, a message meant for what
// another replica holds (an MCP client's answer to a request the other
// replica sent) publishes it, and the door on every replica sees it. Door
// messages are as rare as the runtime's (answers, cancels), so every
// replica receives every one and ignores those for others.

// opDoor is a door's message: Door names the door, Payload is its own.
const opDoor = "door"

// doorHandlers are the doors' receivers, by door name.
type doorHandlers struct {
	mu sync.Mutex
	by map[string]func(payload json.RawMessage)
}

// OnDoorMessage makes fn receive every message a door of that name
// publishes on any replica (this one included), on the hub's goroutine: fn
// must not block. A second call for the same door replaces the first.
func (s *Service) OnDoorMessage(door string, fn func(payload json.RawMessage)) {
	s.doors.mu.Lock()
	defer s.doors.mu.Unlock()
	if s.doors.by == nil {
		s.doors.by = map[string]func(json.RawMessage){}
	}
	s.doors.by[door] = fn
}

// PublishDoorMessage sends a door's message to that door on every replica.
// The error means the store could not carry it.
func (s *Service) PublishDoorMessage(ctx context.Context, door string, payload json.RawMessage) error {
	if err := s.sendControl(ctx, control{Op: opDoor, Door: door, Payload: payload}); err != nil {
		return s.storeFailure(err)
	}
	return nil
}

// onDoorMessage hands a door's message to its receiver on this replica.
func (s *Service) onDoorMessage(c control) {
	s.doors.mu.Lock()
	fn := s.doors.by[c.Door]
	s.doors.mu.Unlock()
	if fn != nil {
		fn(c.Payload)
	}
}
