package runtime

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestSessionIDIsAVersion7UUID(t *testing.T) {
	at := time.Date(2026, 12, 6, 5, 30, 0, 123_000_000, time.UTC)
	id := newSessionIDAt(at)
	if len(id) != 32 {
		t.Fatalf("session ID %q: %d characters, want 32", id, len(id))
	}
	u, err := uuid.Parse(id)
	if err != nil {
		t.Fatalf("session ID %q is not a UUID: %v", id, err)
	}
	if u.Version() != 7 || u.Variant() != uuid.RFC4122 {
		t.Fatalf("session ID %q: version %d, variant %v; want 7 and RFC 4122", id, u.Version(), u.Variant())
	}
	sec, nsec := u.Time().UnixTime()
	if got := time.Unix(sec, nsec).UnixMilli(); got != at.UnixMilli() {
		t.Fatalf("session ID %q holds the time %d ms, want %d", id, got, at.UnixMilli())
	}
	if !validSessionID(id) {
		t.Fatalf("session ID %q is refused by validSessionID", id)
	}
}

func TestSessionIDsSortByTimeAndDoNotRepeat(t *testing.T) {
	at := time.Date(2026, 12, 6, 5, 30, 0, 0, time.UTC)
	seen := map[string]bool{}
	earlier := "" // the greatest ID of the milliseconds before
	for ms := range 100 {
		// IDs of one millisecond come in any order; each sorts after every
		// ID of an earlier one
		greatest := earlier
		for range 10 {
			id := newSessionIDAt(at.Add(time.Duration(ms) * time.Millisecond))
			if seen[id] {
				t.Fatalf("session ID %q made twice", id)
			}
			seen[id] = true
			if id <= earlier {
				t.Fatalf("ID %q of millisecond %d sorts before %q of an earlier one", id, ms, earlier)
			}
			greatest = max(greatest, id)
		}
		earlier = greatest
	}
}
