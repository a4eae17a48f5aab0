package openaiapi

import (
	"context"
	"strings"
	"time"

	"github.com/harnest/harnest/runtime"
)

// A response with "store": false is not kept: its ID is never found (GET,
// cancel, input_items and previous_response_id answer 404, as the
// specification says), and nothing of it outlives its turn. The runtime
// still writes what it needs to run the turn (a session, the receipt and
// event log that let any replica follow it, the transcript, a wait for a
// function_call): so the turn runs in a session of its own, named with
// ephemeralPrefix, which the door deletes, with all of that, once the
// turn ends. A turn that ends with a function_call keeps it until the
// caller answers (a function_call_output with the call_id, and no
// previous_response_id: the response is not stored) and that continuation
// ends; a wait nobody answers expires, and the store's retention drops
// the session. The continuation after an answer is kept as its
// conversation is, whatever the answer's own "store" says. Such a request cannot continue a stored conversation (its
// turn would stay in that transcript): the caller sends the earlier
// messages in its input instead. No request record is written
// (responses_record.go).

// ephemeralPrefix starts the ID of a session made for a response that is
// not stored.
const ephemeralPrefix = "unstored_"

// dropTries bounds how often the door tries to delete an ephemeral
// session that a response still holds (it is ending), dropPause apart.
const (
	dropTries = 100
	dropPause = 50 * time.Millisecond
)

// isEphemeral reports whether a session was made for a response that is
// not stored.
func isEphemeral(session string) bool { return strings.HasPrefix(session, ephemeralPrefix) }

// ephemeralSession makes the session a response that is not stored runs in.
func (d *door) ephemeralSession(ctx context.Context, p runtime.Principal) (string, error) {
	s, err := d.svc.CreateSession(ctx, p, ephemeralPrefix+runtime.NewSessionID(), nil)
	return s.ID, err
}

// dropEphemeral deletes the session of a response that is not stored, once
// its turn ended (waiting is false): after done is closed (the response is
// over and recorded; nil: it is), trying again while the response still
// holds the session. It goes on after the caller left, and a failure is
// logged: the store's retention drops what is left.
func (d *door) dropEphemeral(ctx context.Context, p runtime.Principal, ref responseRef, waiting bool, done <-chan struct{}) {
	if !ref.Ephemeral || waiting {
		return
	}
	if done != nil {
		select {
		case <-done:
		case <-time.After(dropTries * dropPause):
		}
	}
	ctx = context.WithoutCancel(ctx)
	var err error
	for range dropTries {
		err = d.svc.DeleteSession(ctx, p, ref.SessionID)
		if err == nil || runtime.AsError(err).Kind == runtime.ErrNotFound {
			return
		}
		if runtime.AsError(err).Kind != runtime.ErrConflict {
			break
		}
		time.Sleep(dropPause) // the response still holds the session
	}
	d.log.Warn("openresponses: the session of a response that is not stored was not deleted; the store's retention drops it",
		"session", ref.SessionID, "err", err)
}
