package memstore

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSessionIndexOrder checks that the session index pages IDs in their
// byte order, whatever their length and bytes (the index compares an 8-byte
// prefix first), and that a page after an ID starts right after it.
func TestSessionIndexOrder(t *testing.T) {
	var x userIndex
	for i := range x.shards {
		x.shards[i].users = map[string]*userData{}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{0x00, 0x01, 'a', 'b', 'z', 0x7f, 0x80, 0xff}
	seen := map[string]bool{}
	for range 3000 {
		b := make([]byte, rng.IntN(13)) // shorter and longer than the prefix
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		id := string(b)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		x.addSession("u", id)
	}
	want := make([]string, 0, len(seen))
	for id := range seen {
		want = append(want, id)
	}
	slices.Sort(want)
	if got := x.sessionsAfter("u", "", 0); !slices.Equal(got, want) {
		t.Fatalf("the index is not in ID order: %d IDs, first differences at the start: %q vs %q", len(got), got[:5], want[:5])
	}
	for i := 0; i < len(want); i += 97 {
		got := x.sessionsAfter("u", want[i], 10)
		end := min(len(want), i+11)
		if !slices.Equal(got, want[i+1:end]) {
			t.Fatalf("the page after %q is %q, want %q", want[i], got, want[i+1:end])
		}
	}
	for _, id := range want[:100] {
		x.removeSession("u", id, 0)
	}
	if got := x.sessionsAfter("u", "", 0); !slices.Equal(got, want[100:]) {
		t.Fatalf("after removing the first 100 IDs the index holds %d, want %d", len(got), len(want)-100)
	}
}
