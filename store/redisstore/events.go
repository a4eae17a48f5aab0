package redisstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// A response's event log is a sorted set under its session's tag. Each
// write (a flush, or the commit of a step) adds one member holding a batch
// of consecutive events, scored by the batch's last sequence, so "the
// batches holding events after sequence n" is a plain ZRANGE BYSCORE from
// (n. A member is the batch's first sequence, the length of its types,
// the types (comma-separated) and the events' JSON as an array:
// "3:27:response.output_text.delta[{...}]" (see appendEventMember).
//
// A log written in one batch, by the one step of a new session's turn
// (commit_new.go), is a plain string instead, which holds the response's
// receipt as well: "R", the receipt's length, ":", the receipt, then the
// batch's member (empty when the step had no events), as in
// "R260:{...}0:75:response.created,...[...]". A sorted set of one member
// costs Redis a skiplist, a dict and an expiry command more, and a key of
// its own for the receipt another key and expiry. No later write adds to
// such a log (the step was the response's last, with a final receipt), so
// a log kept as a string is a finished response's: the scripts that must
// not write over a final receipt refuse when they find one. A reader
// meeting a string reads it as the one member it holds. (Strings written
// before the receipt moved in start with a digit: the member alone, the
// receipt in its own key.)
//
// A sorted set rather than a stream: Redis gives a new stream's first node
// 4 KiB at once, which a short turn's log never fills, and a batch written
// again (its first answer lost) is the same member with the same score, so
// adding it again changes nothing. The log is capped at about MaxEvents
// events (the batches that end before the oldest kept sequence are
// removed); a reader asking for a position that was trimmed away is told
// so.

// eventMember is the log's member for a batch of consecutive events.
func eventMember(events []store.Event) []byte {
	return appendEventMember(make([]byte, 0, eventMemberSize(events)), events)
}

// eventMemberSize is about the length of events' member: room enough.
func eventMemberSize(events []store.Event) int {
	size := 2 + 2*20
	for _, e := range events {
		size += len(e.JSON) + len(e.Type) + 2
	}
	return size
}

// oneStepLog is the plain string that keeps the receipt and the whole log
// of a response written in one step (see the top of this file).
func oneStepLog(receipt []byte, events []store.Event) []byte {
	b := make([]byte, 0, 1+20+1+len(receipt)+eventMemberSize(events))
	b = append(b, 'R')
	b = strconv.AppendInt(b, int64(len(receipt)), 10)
	b = append(b, ':')
	b = append(b, receipt...)
	if len(events) == 0 {
		return b
	}
	return appendEventMember(b, events)
}

// splitOneStepLog splits a log kept as a plain string into the receipt it
// holds (nil in the older form, which has none) and its member ("" when
// the step had no events).
func splitOneStepLog(log string) (receipt []byte, member string, err error) {
	if !strings.HasPrefix(log, "R") {
		return nil, log, nil
	}
	sizeText, rest, ok := strings.Cut(log[1:], ":")
	size, err := strconv.Atoi(sizeText)
	if !ok || err != nil || size < 0 || size > len(rest) {
		return nil, "", fmt.Errorf("store: read a one-step response: its receipt's length is not a length")
	}
	return []byte(rest[:size]), rest[size:], nil
}

// appendEventMember appends events' member to b.
func appendEventMember(b []byte, events []store.Event) []byte {
	b = strconv.AppendInt(b, int64(events[0].Sequence), 10)
	b = append(b, ':')
	typesSize := -1
	for _, e := range events {
		typesSize += len(e.Type) + 1
	}
	b = strconv.AppendInt(b, int64(max(typesSize, 0)), 10)
	b = append(b, ':')
	for i, e := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.Type...)
	}
	b = append(b, '[')
	for i, e := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.JSON...)
	}
	return append(b, ']')
}

// eventBatch decodes one member of a log: its batch of consecutive events.
func eventBatch(member string) ([]store.Event, error) {
	bad := fmt.Errorf("store: read events: a log entry is not a batch of events")
	firstText, rest, ok1 := strings.Cut(member, ":")
	sizeText, rest, ok2 := strings.Cut(rest, ":")
	first, err1 := strconv.Atoi(firstText)
	size, err2 := strconv.Atoi(sizeText)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || size < 0 || size > len(rest) {
		return nil, bad
	}
	types := strings.Split(rest[:size], ",")
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(rest[size:]), &raws); err != nil || len(raws) != len(types) {
		return nil, bad
	}
	batch := make([]store.Event, len(raws))
	for j, raw := range raws {
		batch[j] = store.Event{Sequence: first + j, Type: types[j], JSON: raw}
	}
	return batch, nil
}

// trimBelow is the score below which a log's batches are removed once it
// holds the batch ending at sequence last ("" when nothing is trimmed): a
// batch wholly before the oldest kept event.
func trimBelow(last int) string {
	if oldest := last + 1 - store.MaxEvents; oldest > 0 {
		return "(" + strconv.Itoa(oldest) // exact: a few large batches would never reach an approximate bound
	}
	return ""
}

// appendScript logs a batch of a running response's events and announces
// it, unless the writer's epoch is not the run's.
// KEYS: the log, the run's epoch. ARGV: 1 the writer's epoch, 2 the
// batch's score (its last sequence), 3 its member, 4 the score below which
// the log is trimmed ("" for none), 5 the log's TTL in ms, 6 the channel.
// It returns 1, or -2 (nothing written) when fenced.
var appendScript = redis.NewScript(fencedLua + `
if fenced(KEYS[2], ARGV[1]) then return -2 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
if ARGV[4] ~= '' then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PUBLISH', ARGV[6], ARGV[2])
return 1
`)

// AppendEvents logs events of a running response and tells followers on
// every replica, in one script (one round trip) that first compares the
// writer's epoch with the run's (ErrFenced: nothing is logged). Steps that
// change the receipt use CommitResponse, which logs their events
// atomically with it.
func (s *Store) AppendEvents(ctx context.Context, user, session, responseID string, epoch int, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	k := s.sessionKeys(user, session)
	last := events[len(events)-1].Sequence
	c := newScriptCall(appendScript, 6, 2)
	c.key(k.events(responseID))
	c.key(k.epoch(responseID))
	c.str(epochArg(epoch))
	c.num(int64(last))
	c.bytes(eventMember(events))
	c.str(trimBelow(last))
	c.num(millis(s.receiptTTL))
	c.str(k.channel(responseID))
	_, err := s.runCounting(ctx, c, "append events", fencedRefusal)
	return err
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
		members, more, err := s.eventEntries(ctx, key, after, want)
		if err != nil {
			return nil, err
		}
		read, err := eventBatches(members)
		if err != nil {
			return nil, err
		}
		if first && len(read) > 0 && read[0].Sequence > after+1 {
			return nil, store.ErrEventsTrimmed
		}
		for _, e := range read {
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
		if !more || len(out) == held || limit > 0 && len(out) == limit {
			return out, nil // the log ends, or no entry added an event
		}
	}
}

// eventBatches decodes the members of one read, in sequence order. The
// batches come in the order of their last events; only a batch written
// again after later ones (a write whose answer was lost, sent again once
// the log was past it) brings earlier events after later ones.
func eventBatches(members []string) ([]store.Event, error) {
	var read []store.Event
	sorted := true
	for _, m := range members {
		batch, err := eventBatch(m)
		if err != nil {
			return nil, err
		}
		if len(read) > 0 && len(batch) > 0 && batch[0].Sequence <= read[len(read)-1].Sequence {
			sorted = false
		}
		read = append(read, batch...)
	}
	if !sorted {
		slices.SortStableFunc(read, func(a, b store.Event) int { return cmp.Compare(a.Sequence, b.Sequence) })
	}
	return read, nil
}

// maxEventsPerRead bounds the sequences one read of EventsAfter spans, so
// that a huge limit cannot overflow the scores it asks for.
const maxEventsPerRead = 1 << 30

// eventEntries reads the batches of a log that hold the want events
// after sequence after: those whose last event is one of the next want
// sequences, and the first batch past them. more reports that there may be
// further batches (the batch past them was read whole). With want < 1 it
// reads every batch after after. A log of one batch (a plain string) is
// read whole.
func (s *Store) eventEntries(ctx context.Context, key string, after, want int) (members []string, more bool, err error) {
	from := "(" + strconv.Itoa(after)
	if want < 1 {
		members, err = s.rdb.ZRangeByScore(ctx, key, &redis.ZRangeBy{Min: from, Max: "+inf"}).Result()
	} else {
		through := strconv.Itoa(after + want)
		var within, next *redis.StringSliceCmd
		_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			within = p.ZRangeByScore(ctx, key, &redis.ZRangeBy{Min: from, Max: through})
			next = p.ZRangeByScore(ctx, key, &redis.ZRangeBy{Min: "(" + through, Max: "+inf", Count: 1})
			return nil
		})
		if err == nil {
			members, more = append(within.Val(), next.Val()...), len(next.Val()) > 0
		}
	}
	if redis.HasErrorPrefix(err, "WRONGTYPE") {
		return s.oneBatchLog(ctx, key)
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: read events: %w", err)
	}
	return members, more, nil
}

// oneBatchLog reads a log kept as a plain string: its one member, if it
// has one.
func (s *Store) oneBatchLog(ctx context.Context, key string) (members []string, more bool, err error) {
	log, err := s.rdb.Get(ctx, key).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, false, nil // expired, or deleted, since the first read
	case err != nil:
		return nil, false, fmt.Errorf("store: read events: %w", err)
	}
	_, member, err := splitOneStepLog(log)
	if err != nil || member == "" {
		return nil, false, err
	}
	return []string{member}, false, nil
}

// eventsChannel is where a response's new events are announced.
func (s *Store) eventsChannel(user, session, responseID string) string {
	return s.sessionKeys(user, session).channel(responseID)
}
