package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/harnest/harnest/store"
)

// Compaction of long sessions: an agent (the model backend) that keeps a
// session's prompt within a budget replaces older messages by a summary.
// The summary is a compaction item, appended to the transcript (GET
// /sessions/{id}/messages shows it, type "compaction", with the range of
// messages it stands for), and the session's compaction state (the store's
// Compactions slice) names the newest item, so that each later turn builds
// its prompt from that summary and the messages after its range, and
// keeps the ratio of the tokens the endpoint reported to the agent's own
// estimate. A turn compacts through Turn.Compaction; POST
// /sessions/{id}/compact asks the agent to do it now (SessionCompacter).

// MessageTypeCompaction is the type of a compaction item in a transcript
// (other messages have no type).
const MessageTypeCompaction = "compaction"

// CompactionItem is a transcript item that stands for a range of earlier
// messages in an agent's prompt: their summary. A later item's summary
// includes the earlier one's: the newest item stands for every message
// from Replaces.FromIndex through Replaces.ToIndex (earlier items
// included).
type CompactionItem struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`    // "compaction"
	Role      string          `json:"role"`    // "system": what the model is shown it as
	Content   string          `json:"content"` // the summary
	Replaces  CompactionRange `json:"replaces"`
	CreatedAt string          `json:"createdAt"`
	Metadata  CompactionInfo  `json:"metadata"`
}

// CompactionRange is the range of transcript messages a compaction item
// stands for: indexes (offsets in the transcript, 0 first) and IDs of its
// first and last message.
type CompactionRange struct {
	FromIndex     int64  `json:"fromIndex"`
	ToIndex       int64  `json:"toIndex"`
	FromMessageID string `json:"fromMessageId"`
	ToMessageID   string `json:"toMessageId"`
}

// CompactionInfo is how a compaction item was made.
type CompactionInfo struct {
	// ResponseID is the turn that compacted; empty on demand.
	ResponseID string `json:"responseId,omitempty"`
	// Reason is "budget" (the prompt outgrew the agent's token budget),
	// "messages" (more messages than the agent sends), or "request"
	// (POST /sessions/{id}/compact).
	Reason string `json:"reason"`
	// Model is the model that wrote the summary.
	Model string `json:"model,omitempty"`
	// Summarized is how many messages this compaction summarised (beyond
	// those of the item before it).
	Summarized int `json:"summarized"`
}

// SessionCompacter is implemented by an agent that compacts a session on
// demand (the model backend). CompactSession summarises the session's
// messages but the keepRecent newest (keepRecent < 0: the agent's own
// setting) and saves the item with c.Save; nil when there was nothing to
// compact.
type SessionCompacter interface {
	CompactSession(ctx context.Context, c *Compaction, keepRecent int) (*CompactionItem, error)
}

// Compacted is the answer of POST /sessions/{id}/compact.
type Compacted struct {
	Object    string `json:"object"` // "session.compaction"
	SessionID string `json:"sessionId"`
	// Compacted says whether a new item was made (false: nothing older
	// than the messages kept was left to summarise).
	Compacted bool `json:"compacted"`
	// Compaction is the session's newest compaction item: the new one,
	// or the one before when nothing was compacted (null: none).
	Compaction *CompactionItem `json:"compaction"`
}

var (
	errCompactionUnsupported = &Error{Kind: ErrConflict, Code: "compaction_unsupported",
		Detail: "This agent does not compact sessions; only the model backend does"}
	errCompactionChanged = &Error{Kind: ErrConflict, Code: "compaction_changed",
		Detail: "The session was compacted by another request meanwhile; read its messages, and retry if needed"}
)

// CompactSession compacts one of the user's sessions now (POST
// /sessions/{id}/compact): 404 for a session the user does not have, 409
// while a response holds it or when the agent does not compact.
func (s *Service) CompactSession(ctx context.Context, p Principal, sessionID string, keepRecent int) (Compacted, error) {
	if _, err := s.GetSession(ctx, p, sessionID); err != nil {
		return Compacted{}, err
	}
	agent, ok := s.agent.(SessionCompacter)
	if !ok {
		return Compacted{}, errCompactionUnsupported
	}
	active, err := s.store.ActiveResponse(ctx, p.UserID, sessionID)
	if err != nil {
		return Compacted{}, s.storeFailure(err)
	}
	if active != "" {
		return Compacted{}, errSessionBusy
	}
	c := s.compaction(p.UserID, sessionID, "")
	item, err := agent.CompactSession(ctx, c, keepRecent)
	if err != nil {
		return Compacted{}, err
	}
	out := Compacted{Object: "session.compaction", SessionID: sessionID, Compacted: item != nil, Compaction: item}
	if item == nil {
		out.Compaction = c.state.Item
	}
	return out, nil
}

// compactionState is what the store keeps of a session's compaction.
type compactionState struct {
	// Item is the newest compaction item (nil: none yet).
	Item *CompactionItem `json:"item,omitempty"`
	// Ratio is the endpoint's reported prompt tokens per estimated token
	// (0: not measured yet).
	Ratio float64 `json:"ratio,omitempty"`
}

// compactionError maps a refused save.
func (s *Service) compactionError(err error) error {
	switch {
	case errors.Is(err, store.ErrSessionNotFound):
		return errSessionNotFound
	case errors.Is(err, store.ErrSessionBusy):
		return errSessionBusy
	case errors.Is(err, store.ErrCompactionChanged):
		return errCompactionChanged
	case errors.Is(err, store.ErrLeaseLost):
		return Errorf(ErrConflict, "lease_lost", "The response no longer holds its session")
	}
	return s.storeFailure(err)
}

func encodeCompactionState(st compactionState) []byte {
	b, _ := json.Marshal(st)
	return b
}
