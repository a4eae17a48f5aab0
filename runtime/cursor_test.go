package runtime

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestSessionCursorRoundTrip(t *testing.T) {
	for _, after := range []string{"s1", "0000", "with space", "ünï/código:{x}", strings.Repeat("z", 300)} {
		c := encodeSessionCursor(after, "u1")
		if strings.ContainsAny(c, "+/=") {
			t.Errorf("cursor %q is not URL-safe unpadded base64", c)
		}
		got, ok := decodeSessionCursor(c, "u1")
		if !ok || got.AfterSessionID != after || got.UserID != "u1" || got.Kind != "sessions" || got.Version != 1 {
			t.Errorf("decode(%q) = %+v, %v", c, got, ok)
		}
	}
}

func TestMessageCursorRoundTrip(t *testing.T) {
	for _, off := range []int64{0, 1, 99, 1 << 40} {
		c := encodeMessageCursor(off, "msg_1", "s1", "u1")
		got, ok := decodeMessageCursor(c, "u1", "s1")
		if !ok || got.Offset != off || got.MessageID != "msg_1" || got.SessionID != "s1" || got.UserID != "u1" {
			t.Errorf("decode(%q) = %+v, %v", c, got, ok)
		}
	}
}

func rawCursor(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

func TestSessionCursorRejections(t *testing.T) {
	valid := encodeSessionCursor("s1", "u1")
	tests := []struct{ name, cursor, user string }{
		{"wrong user", valid, "u2"},
		{"empty user", valid, ""},
		{"message cursor", encodeMessageCursor(0, "m", "s1", "u1"), "u1"},
		{"bad base64", "!!!not-base64!!!", "u1"},
		{"padded base64", base64.URLEncoding.EncodeToString([]byte(`{"version":1,"kind":"sessions","afterSessionId":"s1","userId":"u1"}`)), "u1"},
		{"std base64 alphabet", base64.StdEncoding.EncodeToString([]byte(`{"version":1,"kind":"sessions","afterSessionId":"s?>","userId":"u1"}`)), "u1"},
		{"not json", rawCursor("hello"), "u1"},
		{"json array", rawCursor(`[1]`), "u1"},
		{"wrong version", rawCursor(`{"version":2,"kind":"sessions","afterSessionId":"s1","userId":"u1"}`), "u1"},
		{"no version", rawCursor(`{"kind":"sessions","afterSessionId":"s1","userId":"u1"}`), "u1"},
		{"wrong kind", rawCursor(`{"version":1,"kind":"messages","afterSessionId":"s1","userId":"u1"}`), "u1"},
		{"empty after", encodeSessionCursor("", "u1"), "u1"},
		{"empty", "", "u1"},
		{"truncated", valid[:len(valid)-3], "u1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c, ok := decodeSessionCursor(tt.cursor, tt.user); ok {
				t.Errorf("decodeSessionCursor(%q, %q) accepted: %+v", tt.cursor, tt.user, c)
			}
		})
	}
}

func TestMessageCursorRejections(t *testing.T) {
	valid := encodeMessageCursor(4, "msg_1", "s1", "u1")
	tests := []struct{ name, cursor, user, session string }{
		{"wrong user", valid, "u2", "s1"},
		{"wrong session", valid, "u1", "s2"},
		{"session cursor", encodeSessionCursor("s1", "u1"), "u1", "s1"},
		{"bad base64", "***", "u1", "s1"},
		{"negative offset", encodeMessageCursor(-1, "msg_1", "s1", "u1"), "u1", "s1"},
		{"empty message id", encodeMessageCursor(0, "", "s1", "u1"), "u1", "s1"},
		{"wrong version", rawCursor(`{"version":0,"kind":"messages","offset":1,"messageId":"m","sessionId":"s1","userId":"u1"}`), "u1", "s1"},
		{"fractional offset", rawCursor(`{"version":1,"kind":"messages","offset":1.5,"messageId":"m","sessionId":"s1","userId":"u1"}`), "u1", "s1"},
		{"string offset", rawCursor(`{"version":1,"kind":"messages","offset":"1","messageId":"m","sessionId":"s1","userId":"u1"}`), "u1", "s1"},
		{"empty", "", "u1", "s1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c, ok := decodeMessageCursor(tt.cursor, tt.user, tt.session); ok {
				t.Errorf("decodeMessageCursor(%q) accepted: %+v", tt.cursor, c)
			}
		})
	}
}

func FuzzCursor(f *testing.F) {
	f.Add(encodeSessionCursor("s1", "u1"), "u1", "s1")
	f.Add(encodeSessionCursor("ünï:{x}", "_harnest_neutral"), "_harnest_neutral", "s1")
	f.Add(encodeMessageCursor(3, "msg_1", "s1", "u1"), "u1", "s1")
	f.Add(encodeMessageCursor(-1, "msg_1", "s1", "u1"), "u1", "s1")
	f.Add(rawCursor(`{"Version":1,"KIND":"sessions","afterSessionId":"a","userId":"u"}`), "u", "")
	f.Add(rawCursor(`{"version":1,"kind":"sessions","afterSessionId":"\ud800","userId":"u"}`), "u", "")
	f.Add(rawCursor("{\"version\":1,\"kind\":\"sessions\",\"afterSessionId\":\"\xff\",\"userId\":\"u\"}"), "u", "")
	f.Add("", "", "")
	f.Add("!!!", "u", "s")
	f.Fuzz(func(t *testing.T, cursor, user, session string) {
		if c, ok := decodeSessionCursor(cursor, user); ok {
			if c.UserID != user || c.AfterSessionID == "" {
				t.Fatalf("accepted %+v for user %q", c, user)
			}
			again := encodeSessionCursor(c.AfterSessionID, user)
			c2, ok := decodeSessionCursor(again, user)
			if !ok || c2 != c {
				t.Fatalf("re-encoded session cursor %q: %+v, %v; want %+v", again, c2, ok, c)
			}
			if _, ok := decodeMessageCursor(cursor, user, session); ok {
				t.Fatalf("%q decodes as both kinds", cursor)
			}
		}
		if c, ok := decodeMessageCursor(cursor, user, session); ok {
			if c.UserID != user || c.SessionID != session || c.Offset < 0 || c.MessageID == "" {
				t.Fatalf("accepted %+v for %q/%q", c, user, session)
			}
			again := encodeMessageCursor(c.Offset, c.MessageID, session, user)
			c2, ok := decodeMessageCursor(again, user, session)
			if !ok || c2 != c {
				t.Fatalf("re-encoded message cursor %q: %+v, %v; want %+v", again, c2, ok, c)
			}
		}
	})
}
