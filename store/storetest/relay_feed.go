package storetest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/harnest/harnest/store"
)

// The contract of an owner's feed.

func testRelayFeed(t *testing.T, st store.Store) {
	if id, err := st.LastRelayFeedID(ctx, relayOwnerA); err != nil || id != "0-0" {
		t.Fatalf("empty feed's last ID %q %v", id, err)
	}
	if feed, err := st.RelayFeedAfter(ctx, relayOwnerA, "0-0", 10); err != nil || len(feed) != 0 {
		t.Fatalf("empty feed: %+v %v", feed, err)
	}
	entries := []store.RelayFeedEntry{
		{Participant: "p", Name: "Box", Kind: "cli", Type: "notice", Text: "The tests passed.", At: "2026-01-02T03:04:05.000Z"},
		{Participant: "p", Name: "Box", Kind: "cli", Type: "stage", Item: []byte(`{"type":"gesture","name":"wave"}`), At: "x"},
		{Participant: "p", Name: "Box", Kind: "cli", Type: "notice", Text: "Third.", At: "y"},
	}
	var ids []string
	for _, e := range entries {
		id, err := st.AppendRelayFeed(ctx, relayOwnerA, e)
		relayOK(t, "AppendRelayFeed", err)
		ids = append(ids, id)
	}
	for i, id := range ids {
		if !relayValidFeedID(id) || i > 0 && !relayFeedIDAfter(id, ids[i-1]) {
			t.Fatalf("feed IDs %v: want increasing \"<ms>-<seq>\"", ids)
		}
	}
	if last, _ := st.LastRelayFeedID(ctx, relayOwnerA); last != ids[2] {
		t.Fatalf("last ID %q, want %q", last, ids[2])
	}
	newest, err := st.NewestRelayFeed(ctx, relayOwnerA, 2)
	relayOK(t, "NewestRelayFeed", err)
	if len(newest) != 2 || newest[0].ID != ids[2] || newest[1].ID != ids[1] {
		t.Fatalf("newest two %+v", newest)
	}
	if e := newest[1]; e.Type != "stage" || string(e.Item) != `{"type":"gesture","name":"wave"}` || e.Participant != "p" ||
		e.Name != "Box" || e.Kind != "cli" || e.At != "x" || e.Text != "" {
		t.Fatalf("stage entry %+v", e)
	}
	after, err := st.RelayFeedAfter(ctx, relayOwnerA, ids[0], 10)
	relayOK(t, "RelayFeedAfter", err)
	if len(after) != 2 || after[0].ID != ids[1] || after[1].ID != ids[2] || after[1].Text != "Third." {
		t.Fatalf("after the first %+v", after)
	}
	if after, _ := st.RelayFeedAfter(ctx, relayOwnerA, "0-0", 1); len(after) != 1 || after[0].ID != ids[0] ||
		after[0].At != entries[0].At || after[0].Text != entries[0].Text {
		t.Fatalf("the first one %+v", after)
	}
	if after, _ := st.RelayFeedAfter(ctx, relayOwnerA, ids[2], 10); len(after) != 0 {
		t.Fatalf("after the last %+v", after)
	}

	// The feed is bounded: the newest RelayFeedMax entries are kept.
	for i := 0; i < store.RelayFeedMax+20; i++ {
		_, err := st.AppendRelayFeed(ctx, relayOwnerA, store.RelayFeedEntry{Participant: "p", Type: "notice", Text: strconv.Itoa(i)})
		relayOK(t, "AppendRelayFeed", err)
	}
	newest, err = st.NewestRelayFeed(ctx, relayOwnerA, store.RelayFeedMax)
	relayOK(t, "NewestRelayFeed", err)
	if len(newest) != store.RelayFeedMax || newest[0].Text != strconv.Itoa(store.RelayFeedMax+19) ||
		newest[store.RelayFeedMax-1].Text != "20" {
		t.Fatalf("the newest %d of the bounded feed: %d entries, from %q to %q", store.RelayFeedMax, len(newest),
			newest[0].Text, newest[len(newest)-1].Text)
	}
}

// relayValidFeedID reports whether id is "<ms>-<seq>".
func relayValidFeedID(id string) bool {
	a, b, ok := strings.Cut(id, "-")
	_, e1 := strconv.ParseUint(a, 10, 64)
	_, e2 := strconv.ParseUint(b, 10, 64)
	return ok && e1 == nil && e2 == nil
}

// relayFeedIDAfter reports whether feed ID id comes after prev.
func relayFeedIDAfter(id, prev string) bool {
	var a1, a2, b1, b2 uint64
	fmt.Sscanf(id, "%d-%d", &a1, &a2)
	fmt.Sscanf(prev, "%d-%d", &b1, &b2)
	return a1 > b1 || a1 == b1 && a2 > b2
}
