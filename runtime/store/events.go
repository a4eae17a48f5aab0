package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// A response's event log is a Redis stream under its session's tag. The
// entry for sequence n has the ID 0-(n+1), so "the events after sequence n"
// is a plain XRANGE from 0-(n+2). Each entry holds the event's type ("t")
// and its JSON ("e"). The stream is capped (approximately) at MaxEvents;
// a reader asking for a position that was trimmed away is told so.

// MaxEvents bounds one response's event log.
const MaxEvents = 10000

// Event is one logged event.
type Event struct {
	Sequence int
	Type     string
	JSON     []byte
}

// ErrEventsTrimmed means the events after the asked position are no longer
// held (the log is bounded, or it expired).
var ErrEventsTrimmed = errors.New("store: those events are no longer held")

func eventID(seq int) string { return "0-" + strconv.Itoa(seq+1) }

// addEvents queues XADDs for events into a pipeline or transaction.
func (s *Store) addEvents(ctx context.Context, p redis.Pipeliner, key string, events []Event) {
	for _, e := range events {
		p.XAdd(ctx, &redis.XAddArgs{
			Stream: key, ID: eventID(e.Sequence), MaxLen: MaxEvents, Approx: true,
			Values: []any{"t", e.Type, "e", e.JSON},
		})
	}
}

// AppendEvents logs events of a running response and tells followers on
// every replica, in one round trip. Steps that change the receipt use
// CommitResponse, which logs their events atomically with it.
func (s *Store) AppendEvents(ctx context.Context, user, session, responseID string, events []Event) error {
	if len(events) == 0 {
		return nil
	}
	k := s.sessionKeys(user, session)
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		s.addEvents(ctx, p, k.events(responseID), events)
		p.Expire(ctx, k.events(responseID), s.receiptTTL)
		p.Publish(ctx, s.eventsChannel(user, session, responseID), events[len(events)-1].Sequence)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: append events: %w", err)
	}
	return nil
}

// EventsAfter reads up to limit logged events with a sequence greater than
// after (-1 reads from the start). It returns ErrEventsTrimmed when the
// first wanted event is no longer held although later ones are.
func (s *Store) EventsAfter(ctx context.Context, user, session, responseID string, after, limit int) ([]Event, error) {
	k := s.sessionKeys(user, session)
	msgs, err := s.rdb.XRangeN(ctx, k.events(responseID), eventID(after+1), "+", int64(limit)).Result()
	if err != nil {
		return nil, fmt.Errorf("store: read events: %w", err)
	}
	out := make([]Event, 0, len(msgs))
	for _, m := range msgs {
		seq, ok := sequenceOf(m.ID)
		if !ok {
			continue
		}
		t, _ := m.Values["t"].(string)
		e, _ := m.Values["e"].(string)
		out = append(out, Event{Sequence: seq, Type: t, JSON: []byte(e)})
	}
	if len(out) > 0 && out[0].Sequence != after+1 {
		return nil, ErrEventsTrimmed
	}
	return out, nil
}

func sequenceOf(id string) (int, bool) {
	if len(id) < 3 || id[:2] != "0-" {
		return 0, false
	}
	n, err := strconv.Atoi(id[2:])
	return n - 1, err == nil && n > 0
}

// eventsChannel is where a response's new events are announced.
func (s *Store) eventsChannel(user, session, responseID string) string {
	return s.sessionKeys(user, session).tag + ":n:" + escapeID(responseID)
}
