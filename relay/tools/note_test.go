package tools

import (
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// A run note verifies for its participant until RunNoteTTL after its item
// was asked, and for no one else.
func TestRunNote(t *testing.T) {
	key := []byte("a shared key of the store")
	asked := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	note := SignRunNote(key, "p1", store.RelayItem{ID: "item-1", AskedAt: asked})
	n, err := VerifyRunNote(key, note, "p1", asked.Add(time.Minute))
	if err != nil || n.Item != "item-1" || n.Participant != "p1" {
		t.Fatalf("a fresh note: %+v, %v", n, err)
	}
	if _, err := VerifyRunNote(key, note, "p1", asked.Add(RunNoteTTL)); !errors.Is(err, ErrNoteExpired) {
		t.Errorf("a note at its expiry: %v, want ErrNoteExpired", err)
	}
	if _, err := VerifyRunNote(key, note, "p2", asked); !errors.Is(err, ErrNoteInvalid) {
		t.Errorf("another participant's note: %v, want ErrNoteInvalid", err)
	}
	if _, err := VerifyRunNote([]byte("another key"), note, "p1", asked); !errors.Is(err, ErrNoteInvalid) {
		t.Errorf("a note signed with another key: %v, want ErrNoteInvalid", err)
	}
	if _, err := VerifyRunNote(key, note[:len(note)-2], "p1", asked); !errors.Is(err, ErrNoteInvalid) {
		t.Errorf("a cut note: %v, want ErrNoteInvalid", err)
	}
}
