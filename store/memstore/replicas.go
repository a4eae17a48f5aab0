package memstore

import (
	"context"
	"sort"
	"sync"
	"time"
)

// livenessTable holds each replica's liveness record: the time it lapses.
type livenessTable struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// Heartbeat records that replica is alive until now+ttl.
func (s *Store) Heartbeat(ctx context.Context, replica string, ttl time.Duration, now time.Time) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	s.alive.mu.Lock()
	s.alive.until[replica] = now.Add(ttl)
	s.alive.mu.Unlock()
	return nil
}

// LapsedReplicas returns up to limit replicas whose record lapsed at or
// before now, the earliest first.
func (s *Store) LapsedReplicas(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	s.alive.mu.Lock()
	var out []string
	for id, until := range s.alive.until {
		if !until.After(now) {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return s.alive.until[out[i]].Before(s.alive.until[out[j]]) })
	s.alive.mu.Unlock()
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// ForgetReplica drops replica's record when it lapsed at or before now.
func (s *Store) ForgetReplica(ctx context.Context, replica string, now time.Time) error {
	if err := s.closed.check(); err != nil {
		return err
	}
	s.alive.mu.Lock()
	defer s.alive.mu.Unlock()
	if until, ok := s.alive.until[replica]; ok && !until.After(now) {
		delete(s.alive.until, replica)
	}
	return nil
}

// LiveReplicas returns up to limit replicas whose record lapses after now.
func (s *Store) LiveReplicas(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := s.closed.check(); err != nil {
		return nil, err
	}
	s.alive.mu.Lock()
	var out []string
	for id, until := range s.alive.until {
		if until.After(now) {
			out = append(out, id)
		}
	}
	s.alive.mu.Unlock()
	sort.Strings(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
