package runtime

import "context"

// Cursors are opaque to clients: tokens sealed with the key every replica
// shares (seal.go), bound to the user, and for transcripts to the session.
// A cursor of another user, session or kind, a tampered or a foreign one is
// rejected like a malformed one.

// Cursor kinds, as sealed.
const (
	cursorSessions = "sessions"
	cursorMessages = "messages"
)

// sessionCursor is where a session list page ends.
type sessionCursor struct {
	AfterSessionID string `json:"afterSessionId"`
}

// messageCursor is where a transcript page ends: the last message's offset
// and ID, in the session it belongs to.
type messageCursor struct {
	Offset    int64  `json:"offset"`
	MessageID string `json:"messageId"`
	SessionID string `json:"sessionId"`
}

// encodeSessionCursor seals the position after session ID after for the
// user; the error means the store is unreachable.
func (s *Service) encodeSessionCursor(ctx context.Context, after, user string) (string, error) {
	return s.tokens.SealToken(ctx, cursorSessions, user, sessionCursor{AfterSessionID: after})
}

// decodeSessionCursor opens a session list cursor of the user; ok is false
// for anything else, err is set only when the store is unreachable.
func (s *Service) decodeSessionCursor(ctx context.Context, token, user string) (c sessionCursor, ok bool, err error) {
	ok, err = s.tokens.OpenToken(ctx, token, cursorSessions, user, &c)
	return c, ok && c.AfterSessionID != "", err
}

// encodeMessageCursor seals a transcript position for the user and
// session; the error means the store is unreachable.
func (s *Service) encodeMessageCursor(ctx context.Context, offset int64, messageID, session, user string) (string, error) {
	return s.tokens.SealToken(ctx, cursorMessages, user, messageCursor{Offset: offset, MessageID: messageID, SessionID: session})
}

// decodeMessageCursor opens a transcript cursor of the user and session; ok
// is false for anything else, err is set only when the store is
// unreachable.
func (s *Service) decodeMessageCursor(ctx context.Context, token, user, session string) (c messageCursor, ok bool, err error) {
	ok, err = s.tokens.OpenToken(ctx, token, cursorMessages, user, &c)
	return c, ok && c.SessionID == session && c.Offset >= 0 && c.MessageID != "", err
}
