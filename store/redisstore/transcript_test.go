package redisstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// A transcript is fields of its session's meta; one a session made before
// kept in a sorted set is read from it, and a later step goes on writing
// it there, at the next offsets.
func TestTranscriptOfTheOlderForm(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		beginNew(t, s)
		k := s.sessionKeys("u", "s")
		// The older form: three messages in the set, counted in meta.
		for i := range 3 {
			if err := s.rdb.ZAdd(ctx, k.msgs, redis.Z{Score: float64(i), Member: fmt.Sprintf(`{"n":%d}`, i)}).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.rdb.HSet(ctx, k.meta, "msgs", 3).Err(); err != nil {
			t.Fatal(err)
		}
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{"status":"completed"}`),
			Messages: [][]byte{[]byte(`{"n":3}`), []byte(`{"n":4}`)}, Release: true, Now: "t2"})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.rdb.ZCard(ctx, k.msgs).Result(); err != nil || n != 5 {
			t.Fatalf("the set holds %d messages (%v), want 5", n, err)
		}
		if has, _ := s.rdb.HExists(ctx, k.meta, messageField(3)).Result(); has {
			t.Fatal("a message of the older form went to meta")
		}
		checkPage(t, s, 1, 2, 1, 2)
		checkPage(t, s, 0, 0, 0, 5)
		last, err := s.LastMessages(ctx, "u", "s", 2)
		if err != nil || len(last) != 2 || last[0].Offset != 3 || string(last[1].JSON) != `{"n":4}` {
			t.Fatalf("last 2: %+v %v", last, err)
		}
	})
}

// A transcript in meta is read by pages, and the last messages, at their
// offsets; a step of a begun session appends to it there.
func TestTranscriptInMeta(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		var msgs [][]byte
		for i := range 450 { // more than one HMGET of the read script
			msgs = append(msgs, []byte(fmt.Sprintf(`{"n":%d}`, i)))
		}
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_0", Receipt: []byte(`{"status":"completed"}`),
			Messages: msgs[:2], Release: true, CreateSession: true, Now: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		k := s.sessionKeys("u", "s")
		if n, _ := s.rdb.Exists(ctx, k.msgs).Result(); n != 0 {
			t.Fatal("a new session's transcript is in a set")
		}
		b := store.Begin{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{"status":"in_progress"}`), Lease: 60e9}
		if _, err := s.BeginResponse(ctx, b); err != nil {
			t.Fatal(err)
		}
		err = s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Receipt: []byte(`{"status":"completed"}`),
			Messages: msgs[2:], Release: true, Now: "t2"})
		if err != nil {
			t.Fatal(err)
		}
		checkPage(t, s, 0, 0, 0, 450)
		checkPage(t, s, 1, 2, 1, 2)
		checkPage(t, s, 440, 100, 440, 10)
		checkPage(t, s, 450, 10, 0, 0)
		last, err := s.LastMessages(ctx, "u", "s", 3)
		if err != nil || len(last) != 3 || last[0].Offset != 447 || string(last[2].JSON) != `{"n":449}` {
			t.Fatalf("last 3: %+v %v", last, err)
		}
		if all, err := s.LastMessages(ctx, "u", "s", 0); err != nil || len(all) != 450 {
			t.Fatalf("all: %d %v", len(all), err)
		}
		if none, err := s.Messages(ctx, "u", "nobody", 0, 10); err != nil || len(none) != 0 {
			t.Fatalf("a missing session's transcript: %+v %v", none, err)
		}
	})
}

// checkPage reads limit messages from offset from and wants n of them,
// from offset first, each holding its offset.
func checkPage(t *testing.T, s *Store, from int64, limit int, first int64, n int) {
	t.Helper()
	page, err := s.Messages(context.Background(), "u", "s", from, limit)
	if err != nil || len(page) != n {
		t.Fatalf("from %d, limit %d: %d messages (%v), want %d", from, limit, len(page), err, n)
	}
	for i, m := range page {
		if m.Offset != first+int64(i) || string(m.JSON) != fmt.Sprintf(`{"n":%d}`, first+int64(i)) {
			t.Fatalf("from %d, limit %d: message %d is %d %s", from, limit, i, m.Offset, m.JSON)
		}
	}
}
