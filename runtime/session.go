package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/harnest/harnest/store"
)

// Session is a conversation and its state, as every transport shows it.
type Session struct {
	ID              string                     `json:"id"`
	UserID          string                     `json:"userId"`
	State           map[string]json.RawMessage `json:"state"`
	ApplicationData map[string]json.RawMessage `json:"applicationData"`
	CreatedAt       *string                    `json:"createdAt"`
	UpdatedAt       *string                    `json:"updatedAt"`
	Metadata        map[string]json.RawMessage `json:"metadata"`
}

// SessionPage is one page of a user's sessions.
type SessionPage struct {
	Sessions   []Session `json:"sessions"`
	NextCursor *string   `json:"nextCursor"`
}

// MessagePage is one page of a session transcript.
type MessagePage struct {
	SessionID  string            `json:"sessionId"`
	UserID     string            `json:"userId"`
	Messages   []json.RawMessage `json:"messages"`
	NextCursor *string           `json:"nextCursor"`
}

// MaxPageSize is the largest and default page of sessions or messages.
const MaxPageSize = 100

var (
	errSessionNotFound = &Error{Kind: ErrNotFound, Code: "session_not_found", Detail: "Session not found"}
	errSessionExists   = &Error{Kind: ErrConflict, Code: "session_exists", Detail: "Session already exists"}
	errSessionBusy     = &Error{Kind: ErrConflict, Code: "session_busy",
		Detail: "The session has a response in progress; wait for it to finish or cancel it, then retry"}
)

// CreateSession creates a session; an empty id gets a fresh one. A nil state
// is empty.
func (s *Service) CreateSession(ctx context.Context, p Principal, id string, state map[string]json.RawMessage) (Session, error) {
	if id == "" {
		id = NewSessionID()
	} else if !validSessionID(id) {
		return Session{}, errInvalidSessionID
	}
	if state == nil {
		state = map[string]json.RawMessage{}
	}
	now := s.timestamp()
	err := s.store.CreateSession(ctx, p.UserID, id, state, now)
	if errors.Is(err, store.ErrSessionExists) {
		return Session{}, errSessionExists
	}
	if err != nil {
		return Session{}, s.storeFailure(err)
	}
	return sessionOut(store.Session{ID: id, UserID: p.UserID, State: state, CreatedAt: now, UpdatedAt: now}), nil
}

// GetSession reads one of the user's sessions.
func (s *Service) GetSession(ctx context.Context, p Principal, id string) (Session, error) {
	if !validSessionID(id) {
		return Session{}, errSessionNotFound // no such session can exist
	}
	sess, found, err := s.store.GetSession(ctx, p.UserID, id)
	if err != nil {
		return Session{}, s.storeFailure(err)
	}
	if !found {
		return Session{}, errSessionNotFound
	}
	return sessionOut(sess), nil
}

// ListSessions returns a page of the user's sessions in ID order. cursor is
// "" for the first page; limit is 1..MaxPageSize.
func (s *Service) ListSessions(ctx context.Context, p Principal, cursor string, limit int) (SessionPage, error) {
	after := ""
	if cursor != "" {
		c, ok, err := s.decodeSessionCursor(ctx, cursor, p.UserID)
		if err != nil {
			return SessionPage{}, s.storeFailure(err)
		}
		if !ok {
			return SessionPage{}, Errorf(ErrInvalid, "invalid_cursor", "Invalid session cursor")
		}
		after = c.AfterSessionID
	}
	rows, err := s.store.ListSessions(ctx, p.UserID, after, limit+1)
	if err != nil {
		return SessionPage{}, s.storeFailure(err)
	}
	page := SessionPage{Sessions: make([]Session, 0, min(len(rows), limit))}
	for i, row := range rows {
		if i == limit {
			next, err := s.encodeSessionCursor(ctx, page.Sessions[limit-1].ID, p.UserID)
			if err != nil {
				return SessionPage{}, s.storeFailure(err)
			}
			page.NextCursor = &next
			break
		}
		page.Sessions = append(page.Sessions, sessionOut(row))
	}
	return page, nil
}

// PatchSession merges delta into the session state (shallow: each top-level
// key replaces its value).
func (s *Service) PatchSession(ctx context.Context, p Principal, id string, delta map[string]json.RawMessage) (Session, error) {
	sess, found, err := s.store.PatchState(ctx, p.UserID, id, delta, s.timestamp())
	if err != nil {
		return Session{}, s.storeFailure(err)
	}
	if !found {
		return Session{}, errSessionNotFound
	}
	return sessionOut(sess), nil
}

// DeleteSession removes a session with its transcript and responses. A
// session that a response holds cannot be deleted (409).
func (s *Service) DeleteSession(ctx context.Context, p Principal, id string) error {
	found, err := s.store.DeleteSession(ctx, p.UserID, id)
	switch {
	case errors.Is(err, store.ErrSessionBusy):
		return errSessionBusy
	case err != nil:
		return s.storeFailure(err)
	case !found:
		return errSessionNotFound
	}
	return nil
}

// Messages returns a page of the session transcript, oldest first.
func (s *Service) Messages(ctx context.Context, p Principal, sessionID, cursor string, limit int) (MessagePage, error) {
	if _, err := s.GetSession(ctx, p, sessionID); err != nil {
		return MessagePage{}, err
	}
	invalid := Errorf(ErrInvalid, "invalid_cursor", "Invalid transcript cursor")
	from, skip := int64(0), 0
	var c messageCursor
	if cursor != "" {
		var ok bool
		var err error
		c, ok, err = s.decodeMessageCursor(ctx, cursor, p.UserID, sessionID)
		if err != nil {
			return MessagePage{}, s.storeFailure(err)
		}
		if !ok {
			return MessagePage{}, invalid
		}
		// Read from the cursor's own message to check it is still there.
		from, skip = c.Offset, 1
	}
	rows, err := s.store.Messages(ctx, p.UserID, sessionID, from, limit+1+skip)
	if err != nil {
		return MessagePage{}, s.storeFailure(err)
	}
	if skip == 1 {
		if len(rows) == 0 || rows[0].Offset != c.Offset || messageID(rows[0].JSON) != c.MessageID {
			return MessagePage{}, invalid
		}
		rows = rows[1:]
	}
	page := MessagePage{SessionID: sessionID, UserID: p.UserID, Messages: make([]json.RawMessage, 0, min(len(rows), limit))}
	for i, row := range rows {
		if i == limit {
			last := rows[limit-1]
			next, err := s.encodeMessageCursor(ctx, last.Offset, messageID(last.JSON), sessionID, p.UserID)
			if err != nil {
				return MessagePage{}, s.storeFailure(err)
			}
			page.NextCursor = &next
			break
		}
		page.Messages = append(page.Messages, row.JSON)
	}
	return page, nil
}

func messageID(raw []byte) string {
	var m struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.ID
}

func sessionOut(s store.Session) Session {
	out := Session{
		ID: s.ID, UserID: s.UserID, State: s.State,
		ApplicationData: map[string]json.RawMessage{}, Metadata: map[string]json.RawMessage{},
	}
	if out.State == nil {
		out.State = map[string]json.RawMessage{}
	}
	if s.CreatedAt != "" {
		out.CreatedAt = &s.CreatedAt
	}
	if s.UpdatedAt != "" {
		out.UpdatedAt = &s.UpdatedAt
	}
	return out
}

// storeFailure logs a store error and returns an unavailable error that
// tells the caller to retry, without internal details.
func (s *Service) storeFailure(err error) error {
	s.log.Error("store failure", "err", err)
	s.observer.StoreFailed()
	return Errorf(ErrUnavailable, CodeStoreUnavailable, "The state store is unavailable; retry shortly")
}
