package runtime

import (
	"context"
	"encoding/json"

	"github.com/harnest/harnest/store"
)

// SessionResponsePage is one page of a session's responses, newest first.
type SessionResponsePage struct {
	SessionID  string                   `json:"sessionId"`
	Responses  []SessionResponseSummary `json:"responses"`
	NextCursor *string                  `json:"nextCursor"`
}

// SessionResponseSummary is one response of a session: its receipt's
// status and error code. Status is null once the receipt is no longer kept
// (receipts expire; the session keeps the response's ID).
type SessionResponseSummary struct {
	ID     string         `json:"id"`
	Status *string        `json:"status"`
	Error  *EnvelopeError `json:"error"`
}

// cursorSessionResponses is the sealed kind of a session response list's
// cursor.
const cursorSessionResponses = "sessionResponses"

// sessionResponseCursor is where a page of a session's responses ends: the
// last response's sequence and ID, in the session it belongs to.
type sessionResponseCursor struct {
	Seq        int64  `json:"seq"`
	ResponseID string `json:"responseId"`
	SessionID  string `json:"sessionId"`
}

// SessionResponses returns a page of the session's responses, newest
// first. cursor is "" for the first page; limit is 1..MaxPageSize.
func (s *Service) SessionResponses(ctx context.Context, p Principal, sessionID, cursor string, limit int) (SessionResponsePage, error) {
	if _, err := s.GetSession(ctx, p, sessionID); err != nil {
		return SessionResponsePage{}, err
	}
	before := int64(0)
	if cursor != "" {
		var c sessionResponseCursor
		ok, err := s.tokens.OpenToken(ctx, cursor, cursorSessionResponses, p.UserID, &c)
		if err != nil {
			return SessionResponsePage{}, s.storeFailure(err)
		}
		if !ok || c.SessionID != sessionID || c.Seq < 1 || c.ResponseID == "" {
			return SessionResponsePage{}, Errorf(ErrInvalid, "invalid_cursor", "Invalid cursor: it is not a cursor of this session's responses")
		}
		before = c.Seq
	}
	rows, err := s.store.SessionResponses(ctx, p.UserID, sessionID, before, limit+1)
	if err != nil {
		return SessionResponsePage{}, s.storeFailure(err)
	}
	page := SessionResponsePage{SessionID: sessionID, Responses: make([]SessionResponseSummary, 0, min(len(rows), limit))}
	for i, row := range rows {
		if i == limit {
			last := rows[limit-1]
			next, err := s.tokens.SealToken(ctx, cursorSessionResponses, p.UserID,
				sessionResponseCursor{Seq: last.Seq, ResponseID: last.ID, SessionID: sessionID})
			if err != nil {
				return SessionResponsePage{}, s.storeFailure(err)
			}
			page.NextCursor = &next
			break
		}
		item, err := s.responseSummary(ctx, p, sessionID, row)
		if err != nil {
			return SessionResponsePage{}, err
		}
		page.Responses = append(page.Responses, item)
	}
	return page, nil
}

// responseSummary reads a response's receipt into its summary.
func (s *Service) responseSummary(ctx context.Context, p Principal, sessionID string, row store.SessionResponse) (SessionResponseSummary, error) {
	out := SessionResponseSummary{ID: row.ID}
	receipt, found, err := s.store.Receipt(ctx, p.UserID, sessionID, row.ID)
	if err != nil {
		return out, s.storeFailure(err)
	}
	var env EnvelopeBody
	if found && json.Unmarshal(receipt, &env) == nil && env.Status != "" {
		out.Status, out.Error = &env.Status, env.Error
	}
	return out, nil
}
