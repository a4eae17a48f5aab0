package a2a

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// TestPageTokenSealedForItsUser checks that a ListTasks page token is
// sealed: unreadable, and refused like a malformed one for another user,
// in another form (the old readable base64 JSON) or tampered with.
func TestPageTokenSealedForItsUser(t *testing.T) {
	eachTaskStore(t, func(t *testing.T, s *taskStore) {
		ctx := context.Background()
		now := time.Now()
		for i, id := range []string{"alice-task-1", "alice-task-2", "alice-task-3"} {
			if err := s.put(ctx, "alice", taskAt(id, "c", stateCompleted, now.Add(time.Duration(i)*time.Second), 1)); err != nil {
				t.Fatal(err)
			}
			if err := s.put(ctx, "bob", taskAt("bob-"+id, "c", stateCompleted, now.Add(time.Duration(i)*time.Second), 1)); err != nil {
				t.Fatal(err)
			}
		}
		first, err := s.list(ctx, "alice", listRequest{PageSize: 1})
		if err != nil || first.NextPageToken == "" {
			t.Fatalf("first page: %v %+v", err, first)
		}
		tok := first.NextPageToken
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			t.Fatalf("token %q is not URL-safe unpadded base64: %v", tok, err)
		}
		if strings.Contains(string(raw), "alice-task") {
			t.Fatalf("token %q shows a task ID", tok)
		}
		next, err := s.list(ctx, "alice", listRequest{PageSize: 1, PageToken: tok})
		if err != nil || len(next.Tasks) != 1 || next.Tasks[0].ID != "alice-task-2" {
			t.Fatalf("second page: %v %+v", err, next)
		}

		malformed := listErr(t, s, "alice", "garbage")
		flipped := append([]byte(nil), raw...)
		flipped[len(flipped)/2] ^= 1
		for name, c := range map[string]struct{ user, token string }{
			"another user's": {"bob", tok},
			"old format":     {"alice", base64.RawURLEncoding.EncodeToString([]byte(`{"s":1,"i":"alice-task-2"}`))},
			"tampered":       {"alice", base64.RawURLEncoding.EncodeToString(flipped)},
			"truncated":      {"alice", tok[:len(tok)-2]},
		} {
			if got := listErr(t, s, c.user, c.token); *got != *malformed {
				t.Errorf("%s token: %+v, want the malformed-token error %+v", name, got, malformed)
			}
		}
	})
}

// listErr lists with a page token that must be refused, and returns the
// A2A error.
func listErr(t *testing.T, s *taskStore, user, token string) *Error {
	t.Helper()
	_, err := s.list(context.Background(), user, listRequest{PageSize: 1, PageToken: token})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("page token %q for %s: %v, want an A2A error", token, user, err)
	}
	if e.Code != -32602 || e.Message != "pageToken is not a token this server issued" {
		t.Fatalf("page token %q for %s: %+v, want invalid params", token, user, e)
	}
	return e
}

// TestPageTokenIsTheServicesCursor checks that a page token is the store's
// cursor sealed by the Service as the A2A kind, and only as that kind: one
// token implementation and one key for every cursor the server issues.
func TestPageTokenIsTheServicesCursor(t *testing.T) {
	eachTaskStore(t, func(t *testing.T, s *taskStore) {
		ctx := context.Background()
		now := time.Now()
		for i := 0; i < 3; i++ {
			if err := s.put(ctx, "u", taskAt(string(rune('a'+i)), "c", stateWorking, now.Add(time.Duration(i)*time.Second), 1)); err != nil {
				t.Fatal(err)
			}
		}
		first, err := s.list(ctx, "u", listRequest{PageSize: 1})
		if err != nil || len(first.Tasks) != 1 || first.Tasks[0].ID != "c" || first.NextPageToken == "" {
			t.Fatalf("first page: %v %+v", err, first)
		}
		var cursor store.TaskCursor
		if ok, err := s.svc.OpenToken(ctx, first.NextPageToken, pageTokenKind, "u", &cursor); !ok || err != nil || cursor.ID != "c" {
			t.Fatalf("Service.OpenToken: %v %v %+v", ok, err, cursor)
		}
		if ok, _ := s.svc.OpenToken(ctx, first.NextPageToken, "sessions", "u", &cursor); ok {
			t.Fatal("a page token opened as a session cursor")
		}
		// A cursor the Service seals is a page token.
		tok, err := s.svc.SealToken(ctx, pageTokenKind, "u", store.TaskCursor{StatusMilli: cursor.StatusMilli - 1000, ID: "b"})
		if err != nil {
			t.Fatal(err)
		}
		next, err := s.list(ctx, "u", listRequest{PageSize: 5, PageToken: tok})
		if err != nil || len(next.Tasks) != 1 || next.Tasks[0].ID != "a" {
			t.Fatalf("the page after b: %v %+v", err, next)
		}
	})
}
