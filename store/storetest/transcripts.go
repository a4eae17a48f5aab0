package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testTranscripts is the contract of transcripts: messages appended by
// commits, each at its offset, read in pages from any offset or from the
// end.
func testTranscripts(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"PagesByOffset": transcriptPagesByOffset,
		"LastMessages":  transcriptLastMessages,
		"PerSession":    transcriptPerSession,
	})
}

// commitMessages runs one response that appends n messages named from the
// counter next (m<next>, m<next+1>, ...).
func commitMessages(t *testing.T, s store.Store, user, session string, turn, next, n int) {
	t.Helper()
	rid := fmt.Sprintf("resp_%d", turn)
	mustBegin(t, s, user, session, rid, turn == 0, time.Minute)
	msgs := make([][]byte, n)
	for i := range msgs {
		msgs[i] = []byte(fmt.Sprintf(`{"id":"m%d"}`, next+i))
	}
	err := s.CommitResponse(ctx, store.Commit{User: user, Session: session, ResponseID: rid, Receipt: completed,
		Messages: msgs, Release: true, Replica: "r1", Now: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range msgs {
		msgs[i][1] = 'X' // the store kept its own copy
	}
}

func checkMessages(t *testing.T, what string, got []store.StoredMessage, from, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%s: %d messages, want %d", what, len(got), n)
	}
	for i, m := range got {
		want := fmt.Sprintf(`{"id":"m%d"}`, from+i)
		if m.Offset != int64(from+i) || string(m.JSON) != want {
			t.Fatalf("%s: message %d is %d %s, want %d %s", what, i, m.Offset, m.JSON, from+i, want)
		}
	}
}

func transcriptPagesByOffset(t *testing.T, s store.Store) {
	next := 0
	for turn := 0; turn < 6; turn++ { // 6 turns of 2 messages: offsets 0..11
		commitMessages(t, s, "u", "s", turn, next, 2)
		next += 2
	}
	var all []store.StoredMessage
	for from := int64(0); ; {
		page, err := s.Messages(ctx, "u", "s", from, 5)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if len(page) < 5 {
			break
		}
		from = page[len(page)-1].Offset + 1
	}
	checkMessages(t, "all pages", all, 0, 12)
	page, _ := s.Messages(ctx, "u", "s", 7, 3)
	checkMessages(t, "from 7", page, 7, 3)
	page, _ = s.Messages(ctx, "u", "s", 10, 100)
	checkMessages(t, "from 10", page, 10, 2)
	if page, _ := s.Messages(ctx, "u", "s", 12, 10); len(page) != 0 {
		t.Fatalf("past the end: %d messages", len(page))
	}
	if sess, _, _ := s.GetSession(ctx, "u", "s"); sess.UpdatedAt != "t" {
		t.Fatalf("a commit with messages did not update the session: %+v", sess)
	}
}

func transcriptLastMessages(t *testing.T, s store.Store) {
	if last, err := s.LastMessages(ctx, "u", "s", 3); err != nil || len(last) != 0 {
		t.Fatalf("last of a missing session: %v %v", last, err)
	}
	commitMessages(t, s, "u", "s", 0, 0, 3)
	commitMessages(t, s, "u", "s", 1, 3, 2)
	last, err := s.LastMessages(ctx, "u", "s", 3)
	if err != nil {
		t.Fatal(err)
	}
	checkMessages(t, "last 3", last, 2, 3)
	last, _ = s.LastMessages(ctx, "u", "s", 10)
	checkMessages(t, "last 10 of 5", last, 0, 5)
	last, _ = s.LastMessages(ctx, "u", "s", 1)
	checkMessages(t, "last 1", last, 4, 1)
}

func transcriptPerSession(t *testing.T, s store.Store) {
	commitMessages(t, s, "u", "s", 0, 0, 2)
	for _, c := range [][2]string{{"u", "s2"}, {"v", "s"}} {
		if page, _ := s.Messages(ctx, c[0], c[1], 0, 10); len(page) != 0 {
			t.Fatalf("%v reads the transcript of u/s", c)
		}
		if page, _ := s.LastMessages(ctx, c[0], c[1], 10); len(page) != 0 {
			t.Fatalf("%v reads the end of the transcript of u/s", c)
		}
	}
}
