package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/harnest/harnest/store"
)

// A turn's journal of resume points. A backend that runs a turn in steps
// (the model backend: each model reply, each tool result) records each
// completed step with Turn.Journal.Record once the step's events are
// emitted: the step's data and the sequence of the last event emitted so
// far go to the store in one write fenced by the run's epoch, with the
// events not logged yet (store.Journals.RecordPoint).
//
// When the turn's replica is lost and another claims it (claim.go), the
// claimer reads the journal back (recall): the retraction withdraws only
// what was logged after the last resume point, the events up to it stay
// the turn's (folded into the new attempt's output, so the receipt and the
// transcript hold each completed step once), and the new attempt's
// backend gets the recorded steps through Recall. It replays them without
// calling out again and without emitting their events (they are in the
// log), then goes live with the step that was in flight.
//
// Only a turn that can run again records anything (one with a stored
// request: a background turn of an agent that is rerun, see encodeRerun,
// or any turn of it once it waits for an answer, onlyAfterAWait); for
// the others Record does nothing, so they pay no round trip. A backend records nothing for a step that
// ends the turn: a one-step turn costs no extra write.

// Journal is a turn's resume points: those recorded by earlier attempts
// (Recall) and the recording of this attempt's (Record). A nil Journal
// recalls nothing and records nothing.
type Journal struct {
	r        *Response
	recalled map[string][]byte
	// scope prefixes every key (Within): a backend that runs another
	// backend (the router's rungs) keeps the inner one's keys apart.
	scope string
}

// newJournal is the journal of r's turn with the points earlier attempts
// recorded (nil when r's turn cannot run again: nothing to record).
func newJournal(r *Response, recalled map[string][]byte) *Journal {
	if r.rerunRequest == nil {
		return nil
	}
	return &Journal{r: r, recalled: recalled}
}

// Recall returns the data an earlier attempt recorded under key.
func (j *Journal) Recall(key string) (data []byte, ok bool) {
	if j == nil {
		return nil, false
	}
	data, ok = j.recalled[j.scope+key]
	return data, ok
}

// Record keeps a completed step under key (a name stable from one attempt
// to the next), after the events emitted so far, in one store write. A
// store that does not answer costs the point, not the turn: it is logged
// and nil returned (a later attempt then replays less). It returns an
// error only when the turn cannot go on: another replica claimed it (the
// turn is cancelled), or ctx ended.
func (j *Journal) Record(ctx context.Context, key string, data []byte) error {
	if j == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r := j.r
	key = j.scope + key
	r.mu.Lock()
	waits := r.waits
	r.mu.Unlock()
	err := r.recordPoint(ctx, key, withWaits(waits, data))
	switch {
	case errors.Is(err, store.ErrFenced):
		r.fenced()
		return errClaimed
	case err != nil:
		r.svc.log.Warn("cannot record a resume point; the turn goes on without it", "responseId", r.ID, "key", key, "err", err)
		r.svc.observer.StoreFailed()
	}
	return nil
}

// recordPoint writes a resume point with the events not logged yet, after
// any flush in flight, so the log stays in sequence order; events it could
// not log are kept for the next write.
func (r *Response) recordPoint(ctx context.Context, key string, data []byte) error {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	events, last := r.takePendingThrough()
	ctx = context.WithoutCancel(ctx) // the store bounds the call in time
	err := r.beginLate(ctx)
	if err == nil {
		err = r.svc.store.RecordPoint(ctx, store.ResumePoint{User: r.turn.UserID, Session: r.SessionID, ResponseID: r.ID,
			Epoch: r.epoch, Key: key, Data: data, Sequence: last, Events: events})
	}
	if err != nil {
		if !errors.Is(err, store.ErrFenced) {
			r.mu.Lock()
			r.pending = append(events, r.pending...)
			r.mu.Unlock()
		}
		return err
	}
	r.sendWebhookEvents(events)
	return nil
}

// takePendingThrough is takePending with the sequence of the last event
// emitted, read under the same lock: every event up to it is logged or
// among those returned.
func (r *Response) takePendingThrough() ([]store.Event, int) {
	r.mu.Lock()
	last := r.seq - 1
	r.mu.Unlock()
	events := r.takePending(false) // mid-run: no segment has ended
	// Events emitted between the two locks follow last: give them back.
	i := len(events)
	for i > 0 && events[i-1].Sequence > last {
		i--
	}
	if i < len(events) {
		r.mu.Lock()
		r.pending = append(append([]store.Event(nil), events[i:]...), r.pending...)
		r.mu.Unlock()
	}
	return events[:i], last
}

// resumed is what a claimer takes over of a lost attempt: the retraction
// of what it logged after its last resume point, the events up to that
// point, and the points.
type resumed struct {
	retraction Retraction
	kept       []Event
	points     map[string][]byte
}

// recall reads a claimed run's journal and log (the claim hook of
// claim.go's resume).
func (s *Service) recall(ctx context.Context, run store.Lapsed, claimed store.Claimed) (resumed, error) {
	journal, err := s.store.Journal(ctx, run.User, run.Session, run.ResponseID)
	if err != nil {
		return resumed{}, err
	}
	out := resumed{points: journal.Points}
	out.retraction, out.kept, err = s.retraction(ctx, run, claimed, journal.Sequence)
	return out, err
}

// retraction withdraws what the lost attempt streamed after the last
// resume point (at sequence after; -1: none): the events after it, after
// the last retraction and after response.created, to the last logged one,
// and the text they added. It returns too the events the turn keeps: those
// up to the resume point that no earlier retraction withdrew.
func (s *Service) retraction(ctx context.Context, run store.Lapsed, claimed store.Claimed, after int) (Retraction, []Event, error) {
	out := Retraction{FromSequence: claimed.LastSequence + 1, ToSequence: claimed.LastSequence, Attempt: claimed.Attempt}
	events, err := s.store.EventsAfter(ctx, run.User, run.Session, run.ResponseID, -1, 0)
	if err != nil && !errors.Is(err, store.ErrEventsTrimmed) {
		return out, nil, err
	}
	var text strings.Builder
	var kept []Event
	for _, stored := range events {
		var e Event
		if stored.Sequence <= after && json.Unmarshal(stored.JSON, &e) == nil {
			e.Sequence = stored.Sequence
			kept = append(kept, e)
		}
		switch {
		case stored.Type == EventCreated, stored.Type == EventRetracted, stored.Sequence <= after:
			out.FromSequence = stored.Sequence + 1
			text.Reset()
			if stored.Type == EventRetracted && e.Retracted != nil {
				kept = withdraw(kept, *e.Retracted)
			}
		case stored.Type == EventTextDelta:
			var d struct {
				Delta string `json:"delta"`
			}
			if json.Unmarshal(stored.JSON, &d) == nil {
				text.WriteString(d.Delta)
			}
		}
	}
	if out.FromSequence > out.ToSequence {
		out.FromSequence = out.ToSequence + 1 // nothing streamed: an empty range
	}
	out.Text = text.String()
	return out, kept, nil
}

// withdraw drops the events a retraction withdrew.
func withdraw(events []Event, w Retraction) []Event {
	kept := events[:0]
	for _, e := range events {
		if e.Sequence < w.FromSequence || e.Sequence > w.ToSequence {
			kept = append(kept, e)
		}
	}
	return kept
}

// restore gives the new attempt what the completed steps output (its
// receipt and transcript then hold each step once) and the journal of
// their points.
func (m resumed) restore(r *Response) {
	for _, e := range m.kept {
		r.out.add(e)
	}
	points, waits := recalledPoints(m.points)
	r.mu.Lock()
	r.waits = waits
	r.mu.Unlock()
	r.turn.Journal = newJournal(r, points)
}
