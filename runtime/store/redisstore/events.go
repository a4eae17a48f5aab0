package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/harnest/harnest/runtime/store"

	"github.com/redis/go-redis/v9"
)

// A response's event log is a Redis stream under its session's tag. Each
// write (a flush, or the commit of a step) adds one entry holding a batch of
// consecutive events; the entry's ID is 0-(n+1) for the batch's last
// sequence n, so "the entries holding events after sequence n" is a plain
// XRANGE from 0-(n+2). An entry has the batch's first sequence ("f"), the
// events' types ("t", comma-separated) and their JSON as an array ("e").
// The log is capped at about MaxEvents events (XADD MINID); a reader asking
// for a position that was trimmed away is told so.

func eventID(seq int) string { return "0-" + strconv.Itoa(seq+1) }

// addEvents queues one XADD holding a batch of consecutive events, and
// returns it (nil for no events).
func (s *Store) addEvents(ctx context.Context, p redis.Pipeliner, key string, events []store.Event) *redis.StringCmd {
	if len(events) == 0 {
		return nil
	}
	types, batch := eventBatchFields(events)
	last := events[len(events)-1].Sequence
	args := &redis.XAddArgs{
		Stream: key, ID: eventID(last),
		Values: []any{"f", events[0].Sequence, "t", types, "e", batch},
	}
	if oldest := last + 1 - store.MaxEvents; oldest > 0 {
		args.MinID = eventID(oldest) // exact: a few large batches would never fill an approximate node
	}
	return p.XAdd(ctx, args)
}

// eventBatchFields are the "t" and "e" fields of a log entry holding
// events: their types, comma-separated, and their JSON as an array.
func eventBatchFields(events []store.Event) (types string, batch []byte) {
	size, typesSize := 2, 0
	for _, e := range events {
		size += len(e.JSON) + 1
		typesSize += len(e.Type) + 1
	}
	var t strings.Builder
	t.Grow(typesSize)
	batch = make([]byte, 0, size)
	batch = append(batch, '[')
	for i, e := range events {
		if i > 0 {
			batch = append(batch, ',')
			t.WriteByte(',')
		}
		t.WriteString(e.Type)
		batch = append(batch, e.JSON...)
	}
	batch = append(batch, ']')
	return t.String(), batch
}

// AppendEvents logs events of a running response and tells followers on
// every replica, in one round trip. Steps that change the receipt use
// CommitResponse, which logs their events atomically with it.
func (s *Store) AppendEvents(ctx context.Context, user, session, responseID string, events []store.Event) error {
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

// EventsAfter reads up to limit logged events (limit < 1: all it holds)
// with a sequence greater than after (-1 reads from the start). It returns
// ErrEventsTrimmed when the first wanted event is no longer held although
// later ones are.
//
// The limit counts events, not entries: the entries whose last event is
// within the next limit sequences are read with the one entry after them
// (a batch the page ends inside), in one round trip; a gap in the
// sequences (events that were never logged) may take another.
func (s *Store) EventsAfter(ctx context.Context, user, session, responseID string, after, limit int) ([]store.Event, error) {
	key := s.sessionKeys(user, session).events(responseID)
	after = max(after, -1)
	var out []store.Event
	for first := true; ; first = false {
		held := len(out)
		want := min(limit-held, maxEventsPerRead)
		msgs, more, err := s.eventEntries(ctx, key, after, want)
		if err != nil {
			return nil, err
		}
		for i, m := range msgs {
			batch, err := eventBatch(m)
			if err != nil {
				return nil, err
			}
			if first && i == 0 && len(batch) > 0 && batch[0].Sequence > after+1 {
				return nil, store.ErrEventsTrimmed
			}
			for _, e := range batch {
				// A batch written again after a write whose answer was lost
				// repeats events the log already has: each sequence counts once.
				if e.Sequence <= after {
					continue
				}
				if limit > 0 && len(out) == limit {
					return out, nil
				}
				out = append(out, e)
				after = e.Sequence
			}
		}
		if !more || len(out) == held || limit > 0 && len(out) == limit {
			return out, nil // the log ends, or no entry added an event
		}
	}
}

// maxEventsPerRead bounds the sequences one read of EventsAfter spans, so
// that a huge limit cannot overflow an entry ID.
const maxEventsPerRead = 1 << 30

// eventEntries reads the entries of a log that hold the want events after
// sequence after: those whose last event is one of the next want
// sequences, and the first entry past them. more reports that there may be
// further entries (the entry past them was read whole). With want < 1 it
// reads every entry after after.
func (s *Store) eventEntries(ctx context.Context, key string, after, want int) (msgs []redis.XMessage, more bool, err error) {
	if want < 1 {
		msgs, err = s.rdb.XRange(ctx, key, eventID(after+1), "+").Result()
		if err != nil {
			return nil, false, fmt.Errorf("store: read events: %w", err)
		}
		return msgs, false, nil
	}
	var within, next *redis.XMessageSliceCmd
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		within = p.XRange(ctx, key, eventID(after+1), eventID(after+want))
		next = p.XRangeN(ctx, key, eventID(after+want+1), "+", 1)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("store: read events: %w", err)
	}
	msgs = append(within.Val(), next.Val()...)
	return msgs, len(next.Val()) > 0, nil
}

// eventBatch decodes one entry of a log: its batch of consecutive events.
func eventBatch(m redis.XMessage) ([]store.Event, error) {
	first, _ := strconv.Atoi(fmt.Sprint(m.Values["f"]))
	types := strings.Split(fmt.Sprint(m.Values["t"]), ",")
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(fmt.Sprint(m.Values["e"])), &raws); err != nil || len(raws) != len(types) {
		return nil, fmt.Errorf("store: read events: entry %s is not a batch of events", m.ID)
	}
	batch := make([]store.Event, len(raws))
	for j, raw := range raws {
		batch[j] = store.Event{Sequence: first + j, Type: types[j], JSON: raw}
	}
	return batch, nil
}

// eventsChannel is where a response's new events are announced.
func (s *Store) eventsChannel(user, session, responseID string) string {
	return s.sessionKeys(user, session).channel(responseID)
}
