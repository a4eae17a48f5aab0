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
	return s.alive.replicas(now, true, limit), nil
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
	return s.alive.replicas(now, false, limit), nil
}

// replicas returns up to limit (limit <= 0: all) replicas: when lapsed,
// those whose record lapsed at or before now, the earliest first;
// otherwise those whose record lapses after now, in ID order.
func (t *livenessTable) replicas(now time.Time, lapsed bool, limit int) []string {
	t.mu.Lock()
	var out []string
	for id, until := range t.until {
		if until.After(now) != lapsed {
			out = append(out, id)
		}
	}
	if lapsed {
		sort.Slice(out, func(i, j int) bool { return t.until[out[i]].Before(t.until[out[j]]) })
	} else {
		sort.Strings(out)
	}
	t.mu.Unlock()
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
