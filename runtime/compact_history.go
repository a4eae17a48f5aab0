package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harnest/harnest/store"
)

// Compaction is one session's compaction as an agent uses it: its history
// after the newest compaction item, and saving a new item or the token
// ratio. A turn's (Turn.Compaction) writes as the response that holds the
// session; the on-demand one writes only while no response does. It is
// used by one goroutine at a time.
type Compaction struct {
	svc                  *Service
	user, session, owner string // owner: the response that holds the session ("" on demand)
	prev                 []byte // the state as last read or written (nil: none)
	state                compactionState
}

// HistoryMessage is a transcript message with its index in the transcript.
type HistoryMessage struct {
	Index int64
	Message
}

// CompactedHistory is what a prompt is built from: the newest summary and
// the messages after its range.
type CompactedHistory struct {
	// Summary is the session's newest compaction item (nil: none).
	Summary *CompactionItem
	// Messages are the newest messages after the summary's range (after
	// none: the whole transcript), oldest first, at most the limit asked
	// for; compaction items are left out.
	Messages []HistoryMessage
	// Older reports messages after the summary's range that are older
	// than Messages (the limit left them out).
	Older bool
	// Ratio is the endpoint's reported prompt tokens per estimated token,
	// as last saved (0: not measured yet).
	Ratio float64
}

// compaction is the Compaction of a session, written as owner.
func (s *Service) compaction(user, session, owner string) *Compaction {
	return &Compaction{svc: s, user: user, session: session, owner: owner}
}

// History reads the compaction state and the newest messages after the
// summary's range, at most limit of them: one store read.
func (c *Compaction) History(ctx context.Context, limit int) (CompactedHistory, error) {
	// One more than the limit, and one for an item after the range.
	raw, rows, err := c.svc.store.CompactionState(ctx, c.user, c.session, limit+2)
	if err != nil {
		return CompactedHistory{}, err
	}
	c.prev, c.state = raw, compactionState{}
	if raw != nil {
		if err := json.Unmarshal(raw, &c.state); err != nil {
			return CompactedHistory{}, fmt.Errorf("runtime: the session's compaction state is not JSON: %w", err)
		}
	}
	out := CompactedHistory{Summary: c.state.Item, Ratio: c.state.Ratio}
	after := int64(-1)
	if c.state.Item != nil {
		after = c.state.Item.Replaces.ToIndex
	}
	for _, row := range rows {
		if row.Offset <= after {
			continue
		}
		var m Message
		if json.Unmarshal(row.JSON, &m) != nil || m.Type == MessageTypeCompaction {
			continue
		}
		out.Messages = append(out.Messages, HistoryMessage{Index: row.Offset, Message: m})
	}
	if n := len(out.Messages); n > limit {
		out.Messages, out.Older = out.Messages[n-limit:], true
	} else if len(rows) == limit+2 && rows[0].Offset > after+1 {
		out.Older = true // the read began after the range's end: some are unread
	}
	return out, nil
}

// Between reads the transcript messages from index from through index to,
// at most limit of them (the newest when there are more), compaction items
// left out.
func (c *Compaction) Between(ctx context.Context, from, to int64, limit int) ([]HistoryMessage, error) {
	if to < from || limit < 1 {
		return nil, nil
	}
	from = max(from, to-int64(limit)+1)
	rows, err := c.svc.store.Messages(ctx, c.user, c.session, from, int(to-from+1))
	if err != nil {
		return nil, err
	}
	out := make([]HistoryMessage, 0, len(rows))
	for _, row := range rows {
		var m Message
		if json.Unmarshal(row.JSON, &m) != nil || m.Type == MessageTypeCompaction {
			continue
		}
		out = append(out, HistoryMessage{Index: row.Offset, Message: m})
	}
	return out, nil
}

// Summary is what an agent compacted: the summary that stands for the
// messages through Through (and for those the previous item stood for).
type Summary struct {
	Text string
	// First and Last are the first and last message it summarised anew
	// (after the previous item's range).
	First, Last HistoryMessage
	// Summarized is how many messages it summarised anew.
	Summarized int
	Reason     string // budget, messages or request (CompactionInfo.Reason)
	Model      string
	// Ratio, when not 0, is saved as the new token ratio.
	Ratio float64
}

// Save appends the summary's compaction item to the transcript and makes
// it the session's newest, with the ratio, in one store operation.
func (c *Compaction) Save(ctx context.Context, sum Summary) (*CompactionItem, error) {
	item := &CompactionItem{
		ID: "cmp_" + newHex(), Type: MessageTypeCompaction, Role: "system", Content: strings.TrimSpace(sum.Text),
		Replaces: CompactionRange{FromIndex: sum.First.Index, ToIndex: sum.Last.Index,
			FromMessageID: sum.First.ID, ToMessageID: sum.Last.ID},
		CreatedAt: c.svc.timestamp(),
		Metadata:  CompactionInfo{ResponseID: c.owner, Reason: sum.Reason, Model: sum.Model, Summarized: sum.Summarized},
	}
	if prev := c.state.Item; prev != nil {
		item.Replaces.FromIndex, item.Replaces.FromMessageID = prev.Replaces.FromIndex, prev.Replaces.FromMessageID
	}
	next := c.state
	next.Item = item
	if sum.Ratio > 0 {
		next.Ratio = sum.Ratio
	}
	encoded, err := json.Marshal(item)
	if err != nil {
		return nil, err
	}
	if err := c.write(ctx, next, encoded); err != nil {
		return nil, err
	}
	return item, nil
}

// SaveRatio keeps the endpoint's reported prompt tokens per estimated
// token for the session's later turns.
func (c *Compaction) SaveRatio(ctx context.Context, ratio float64) error {
	next := c.state
	next.Ratio = ratio
	return c.write(ctx, next, nil)
}

// Newest is the session's newest compaction item as last read or saved
// (nil: none).
func (c *Compaction) Newest() *CompactionItem { return c.state.Item }

func (c *Compaction) write(ctx context.Context, next compactionState, item []byte) error {
	encoded := encodeCompactionState(next)
	_, err := c.svc.store.SaveCompaction(ctx, storeCompactionSave(c, encoded, item))
	if err != nil {
		return c.svc.compactionError(err)
	}
	c.prev, c.state = encoded, next
	return nil
}

func storeCompactionSave(c *Compaction, state, item []byte) store.CompactionSave {
	return store.CompactionSave{User: c.user, Session: c.session, Holder: c.owner, Prev: c.prev,
		State: state, Item: item, Now: c.svc.timestamp()}
}
