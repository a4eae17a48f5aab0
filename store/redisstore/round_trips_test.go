package redisstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/harnest/harnest/store"

	"github.com/redis/go-redis/v9"
)

// A batch of calls is one transaction, and each call is told the errors
// of its own commands only: a call whose key holds the wrong type fails,
// the others in the batch are written, and every call but the one that
// sent the batch is woken as done.
func TestBatchTellsEachCallItsOwnErrors(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.rdb.Set(ctx, s.prefix+"a string", "x", 0).Err(); err != nil {
			t.Fatal(err)
		}
		setAt := func(key string) func(p redis.Pipeliner) {
			return func(p redis.Pipeliner) { p.HSet(ctx, s.prefix+key, "f", "v"); p.Incr(ctx, s.prefix+key+":n") }
		}
		batch := []*queuedCall{
			{queue: setAt("one"), wake: make(chan bool, 1)},
			{queue: setAt("a string"), wake: make(chan bool, 1)},
			{queue: setAt("three"), wake: make(chan bool, 1)},
		}
		sendBatch(ctx, s.rdb, batch, true, batch[0])
		for i, q := range batch {
			wantErr := i == 1
			if (q.err != nil) != wantErr || wantErr && !strings.Contains(q.err.Error(), "WRONGTYPE") {
				t.Errorf("call %d: %v, want an error: %v", i, q.err, wantErr)
			}
			if len(q.cmds) != 2 {
				t.Errorf("call %d has %d commands, want its 2", i, len(q.cmds))
			}
			select {
			case done := <-q.wake:
				if i == 0 || done {
					t.Errorf("call %d woken with %v", i, done)
				}
			default:
				if i > 0 {
					t.Errorf("call %d was not woken", i)
				}
			}
		}
		for _, key := range []string{"one", "three"} {
			if v, err := s.rdb.HGet(ctx, s.prefix+key, "f").Result(); err != nil || v != "v" {
				t.Errorf("%s: %q %v, want it written", key, v, err)
			}
		}
	})
}

// Many concurrent new sessions' turns, committed in batches, are all
// written, each whole.
func TestNewSessionsCommittedInBatches(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		const turns = 200
		var wg sync.WaitGroup
		errs := make(chan error, turns)
		for i := range turns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				session := fmt.Sprintf("s%03d", i)
				errs <- s.CommitResponse(ctx, store.Commit{User: "u", Session: session, ResponseID: "resp_" + session,
					Receipt: []byte(`{"status":"completed","n":` + fmt.Sprint(i) + `}`), Events: events(0, 2),
					Messages: [][]byte{[]byte(`{"id":"m` + session + `"}`)}, Release: true, CreateSession: true, Now: "t"})
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		list, err := s.ListSessions(ctx, "u", "", turns+1)
		if err != nil || len(list) != turns {
			t.Fatalf("listed %d sessions (%v), want %d", len(list), err, turns)
		}
		for i := range turns {
			session := fmt.Sprintf("s%03d", i)
			receipt, found, err := s.Receipt(ctx, "u", session, "resp_"+session)
			if err != nil || !found || string(receipt) != `{"status":"completed","n":`+fmt.Sprint(i)+`}` {
				t.Fatalf("%s: receipt %s %v %v", session, receipt, found, err)
			}
			msgs, err := s.Messages(ctx, "u", session, 0, 10)
			if err != nil || len(msgs) != 1 || string(msgs[0].JSON) != `{"id":"m`+session+`"}` {
				t.Fatalf("%s: transcript %v %v", session, msgs, err)
			}
			if got, err := s.EventsAfter(ctx, "u", session, "resp_"+session, -1, 0); err != nil || len(got) != 3 {
				t.Fatalf("%s: events %v %v", session, got, err)
			}
		}
	})
}
