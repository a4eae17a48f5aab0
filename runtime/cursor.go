package runtime

import (
	"encoding/base64"
	"encoding/json"
)

// Cursors are opaque to clients: URL-safe base64 (no padding) of compact
// JSON, bound to the user (and, for transcripts, the session). A cursor of
// another user or session is rejected like a malformed one.

type sessionCursor struct {
	Version        int    `json:"version"`
	Kind           string `json:"kind"`
	AfterSessionID string `json:"afterSessionId"`
	UserID         string `json:"userId"`
}

type messageCursor struct {
	Version   int    `json:"version"`
	Kind      string `json:"kind"`
	Offset    int64  `json:"offset"`
	MessageID string `json:"messageId"`
	SessionID string `json:"sessionId"`
	UserID    string `json:"userId"`
}

func encodeCursor(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string, v any) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && json.Unmarshal(b, v) == nil
}

func encodeSessionCursor(after, user string) string {
	return encodeCursor(sessionCursor{Version: 1, Kind: "sessions", AfterSessionID: after, UserID: user})
}

func decodeSessionCursor(s, user string) (sessionCursor, bool) {
	var c sessionCursor
	ok := decodeCursor(s, &c) && c.Version == 1 && c.Kind == "sessions" && c.UserID == user && c.AfterSessionID != ""
	return c, ok
}

func encodeMessageCursor(offset int64, messageID, session, user string) string {
	return encodeCursor(messageCursor{Version: 1, Kind: "messages", Offset: offset, MessageID: messageID, SessionID: session, UserID: user})
}

func decodeMessageCursor(s, user, session string) (messageCursor, bool) {
	var c messageCursor
	ok := decodeCursor(s, &c) && c.Version == 1 && c.Kind == "messages" &&
		c.UserID == user && c.SessionID == session && c.Offset >= 0 && c.MessageID != ""
	return c, ok
}
