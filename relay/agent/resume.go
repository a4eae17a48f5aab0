package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Resume points (runtime.Journal). The inbox item is the turn's resume
// point: once it is enqueued, its owner, participant, ID and deadline are
// recorded (one store write). When the turn's replica is lost (or hands it
// off on shutdown) and another replica runs the turn again, that attempt
// finds the item in the journal and waits for the same reply, until the
// same deadline, instead of asking again: the outside agent is asked once.
// A turn that ends because it continues on another replica leaves its
// item in the inbox.

// itemKey names the inbox item in the turn's journal.
const itemKey = "relay/item"

// recordedItem is what the resume point holds.
type recordedItem struct {
	Owner       string    `json:"owner"`
	Participant string    `json:"participant"`
	Name        string    `json:"name,omitempty"`
	ItemID      string    `json:"itemId"`
	AskedAt     time.Time `json:"askedAt"`
	DeadlineAt  time.Time `json:"deadlineAt"`
}

// recordItem keeps the enqueued item as the turn's resume point.
func recordItem(ctx context.Context, turn *runtime.Turn, p store.RelayParticipant, item store.RelayItem) error {
	data, err := json.Marshal(recordedItem{Owner: p.Owner, Participant: p.ID, Name: p.Name, ItemID: item.ID,
		AskedAt: item.AskedAt, DeadlineAt: item.DeadlineAt})
	if err != nil {
		return err
	}
	return turn.Journal.Record(ctx, itemKey, data)
}

// recallItem is the inbox item an earlier attempt of the turn enqueued,
// with its participant as the wait needs it, if any.
func recallItem(turn *runtime.Turn) (store.RelayParticipant, store.RelayItem, bool) {
	data, ok := turn.Journal.Recall(itemKey)
	if !ok {
		return store.RelayParticipant{}, store.RelayItem{}, false
	}
	var r recordedItem
	if json.Unmarshal(data, &r) != nil || r.ItemID == "" || r.Owner == "" {
		return store.RelayParticipant{}, store.RelayItem{}, false
	}
	p := store.RelayParticipant{Owner: r.Owner, ID: r.Participant, Name: r.Name}
	item := store.RelayItem{ID: r.ItemID, Participant: r.Participant, Text: turn.Input, AskedAt: r.AskedAt, DeadlineAt: r.DeadlineAt}
	return p, item, true
}
