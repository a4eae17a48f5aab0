package runtime

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
)

// fixedKeyService is a bare Service whose tokens are sealed with a fixed
// key: enough for the cursor functions, which need no store.
func fixedKeyService(t testing.TB) *Service {
	key := []byte(strings.Repeat("k", 32))
	return &Service{tokens: NewTokenSealer(func(context.Context) ([]byte, error) { return key, nil })}
}

func sessionCursorOf(t testing.TB, s *Service, after, user string) string {
	t.Helper()
	c, err := s.encodeSessionCursor(context.Background(), after, user)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func messageCursorOf(t testing.TB, s *Service, offset int64, messageID, session, user string) string {
	t.Helper()
	c, err := s.encodeMessageCursor(context.Background(), offset, messageID, session, user)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func openSession(s *Service, token, user string) (sessionCursor, bool) {
	c, ok, err := s.decodeSessionCursor(context.Background(), token, user)
	return c, ok && err == nil
}

func openMessages(s *Service, token, user, session string) (messageCursor, bool) {
	c, ok, err := s.decodeMessageCursor(context.Background(), token, user, session)
	return c, ok && err == nil
}

func TestSessionCursorRoundTrip(t *testing.T) {
	s := fixedKeyService(t)
	for _, after := range []string{"s1", "0000", "with space", "ünï/código:{x}", strings.Repeat("z", 300)} {
		c := sessionCursorOf(t, s, after, "u1")
		if strings.ContainsAny(c, "+/=") {
			t.Errorf("cursor %q is not URL-safe unpadded base64", c)
		}
		got, ok := openSession(s, c, "u1")
		if !ok || got.AfterSessionID != after {
			t.Errorf("decode(%q) = %+v, %v", c, got, ok)
		}
	}
}

func TestMessageCursorRoundTrip(t *testing.T) {
	s := fixedKeyService(t)
	for _, off := range []int64{0, 1, 99, 1 << 40} {
		c := messageCursorOf(t, s, off, "msg_1", "s1", "u1")
		got, ok := openMessages(s, c, "u1", "s1")
		if !ok || got.Offset != off || got.MessageID != "msg_1" || got.SessionID != "s1" {
			t.Errorf("decode(%q) = %+v, %v", c, got, ok)
		}
	}
}

// TestCursorIsUnreadable checks that a cursor does not show where its page
// ends, nor whose it is.
func TestCursorIsUnreadable(t *testing.T) {
	s := fixedKeyService(t)
	c := sessionCursorOf(t, s, "session-visible-id", "user-visible-id")
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{"session-visible-id", "user-visible-id", "afterSessionId", "sessions"} {
		if strings.Contains(string(raw), clear) {
			t.Fatalf("cursor %q shows %q in clear", c, clear)
		}
	}
	if again := sessionCursorOf(t, s, "session-visible-id", "user-visible-id"); again == c {
		t.Fatal("two cursors of the same position are identical: the nonce is not random")
	}
}

func rawCursor(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

// flip changes one byte of a token's decoded content.
func flip(token string, at int) string {
	b, _ := base64.RawURLEncoding.DecodeString(token)
	b[at%len(b)] ^= 0x01
	return base64.RawURLEncoding.EncodeToString(b)
}

func TestSessionCursorRejections(t *testing.T) {
	s := fixedKeyService(t)
	valid := sessionCursorOf(t, s, "s1", "u1")
	raw, _ := base64.RawURLEncoding.DecodeString(valid)
	tests := []struct{ name, cursor, user string }{
		{"wrong user", valid, "u2"},
		{"empty user", valid, ""},
		{"message cursor", messageCursorOf(t, s, 0, "m", "s1", "u1"), "u1"},
		{"bad base64", "!!!not-base64!!!", "u1"},
		{"padding added", valid + "=", "u1"},
		{"std base64 alphabet", base64.StdEncoding.EncodeToString(raw), "u1"},
		{"old format", rawCursor(`{"version":1,"kind":"sessions","afterSessionId":"s1","userId":"u1"}`), "u1"},
		{"not json", rawCursor("hello"), "u1"},
		{"empty after", sessionCursorOf(t, s, "", "u1"), "u1"},
		{"empty", "", "u1"},
		{"truncated", valid[:len(valid)-3], "u1"},
		{"nonce only", base64.RawURLEncoding.EncodeToString(raw[:12]), "u1"},
		{"tampered first byte", flip(valid, 0), "u1"},
		{"tampered middle byte", flip(valid, len(raw)/2), "u1"},
		{"tampered last byte", flip(valid, len(raw)-1), "u1"},
	}
	for _, tt := range tests {
		if tt.cursor == valid && tt.user == "u1" {
			// The standard alphabet spells some tokens exactly as the URL
			// one does (no '+', '/' or padding): nothing to refuse then.
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			if c, ok := openSession(s, tt.cursor, tt.user); ok {
				t.Errorf("decodeSessionCursor(%q, %q) accepted: %+v", tt.cursor, tt.user, c)
			}
		})
	}
	// A cursor sealed with another key (another deployment) is foreign.
	other := fixedKeyService(t)
	other.tokens = NewTokenSealer(func(context.Context) ([]byte, error) { return []byte(strings.Repeat("x", 32)), nil })
	if c, ok := openSession(s, sessionCursorOf(t, other, "s1", "u1"), "u1"); ok {
		t.Errorf("a cursor of another key accepted: %+v", c)
	}
}

func TestMessageCursorRejections(t *testing.T) {
	s := fixedKeyService(t)
	valid := messageCursorOf(t, s, 4, "msg_1", "s1", "u1")
	tests := []struct{ name, cursor, user, session string }{
		{"wrong user", valid, "u2", "s1"},
		{"wrong session", valid, "u1", "s2"},
		{"session cursor", sessionCursorOf(t, s, "s1", "u1"), "u1", "s1"},
		{"bad base64", "***", "u1", "s1"},
		{"negative offset", messageCursorOf(t, s, -1, "msg_1", "s1", "u1"), "u1", "s1"},
		{"empty message id", messageCursorOf(t, s, 0, "", "s1", "u1"), "u1", "s1"},
		{"old format", rawCursor(`{"version":1,"kind":"messages","offset":1,"messageId":"m","sessionId":"s1","userId":"u1"}`), "u1", "s1"},
		{"tampered", flip(valid, 20), "u1", "s1"},
		{"truncated", valid[:len(valid)/2], "u1", "s1"},
		{"empty", "", "u1", "s1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c, ok := openMessages(s, tt.cursor, tt.user, tt.session); ok {
				t.Errorf("decodeMessageCursor(%q) accepted: %+v", tt.cursor, c)
			}
		})
	}
}

func FuzzCursor(f *testing.F) {
	s := fixedKeyService(f)
	f.Add(sessionCursorOf(f, s, "s1", "u1"), "u1", "s1")
	f.Add(sessionCursorOf(f, s, "ünï:{x}", "_harnest_neutral"), "_harnest_neutral", "s1")
	f.Add(messageCursorOf(f, s, 3, "msg_1", "s1", "u1"), "u1", "s1")
	f.Add(messageCursorOf(f, s, -1, "msg_1", "s1", "u1"), "u1", "s1")
	f.Add(rawCursor(`{"version":1,"kind":"sessions","afterSessionId":"a","userId":"u"}`), "u", "")
	f.Add("", "", "")
	f.Add("!!!", "u", "s")
	f.Fuzz(func(t *testing.T, cursor, user, session string) {
		if c, ok := openSession(s, cursor, user); ok {
			if c.AfterSessionID == "" {
				t.Fatalf("accepted %+v for user %q", c, user)
			}
			again := sessionCursorOf(t, s, c.AfterSessionID, user)
			c2, ok := openSession(s, again, user)
			if !ok || c2 != c {
				t.Fatalf("re-encoded session cursor %q: %+v, %v; want %+v", again, c2, ok, c)
			}
			if _, ok := openMessages(s, cursor, user, session); ok {
				t.Fatalf("%q decodes as both kinds", cursor)
			}
		}
		if c, ok := openMessages(s, cursor, user, session); ok {
			if c.SessionID != session || c.Offset < 0 || c.MessageID == "" {
				t.Fatalf("accepted %+v for %q/%q", c, user, session)
			}
		}
	})
}
