package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

// A final receipt never changes: neither a late commit nor a receipt
// replacement overwrites it.
func TestFinalReceiptNeverChanges(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		begin := store.Begin{User: "u", Session: "s", ResponseID: "resp_1", CreateSession: true,
			Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute, Replica: "r1"}
		if _, err := s.BeginResponse(ctx, begin); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", []byte(`{"status":"requires_action"}`)); err != nil {
			t.Fatalf("replacing a receipt that is not final: %v", err)
		}
		// The lease lapses (deleted by hand: the embedded store does not
		// expire keys by the clock) and a sweeper records the run as lost.
		if err := s.Client().Del(ctx, s.sessionKeys("u", "s").lease).Err(); err != nil {
			t.Fatal(err)
		}
		final := []byte(`{"id":"resp_1","sessionId":"s","status":"failed","output":[],"metadata":{"status":"in_progress"},"error":{"code":"replica_lost"}}`)
		if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", final); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", time.Minute); ok || err != nil {
			t.Fatalf("a renewal took the lease back over a final receipt: %v %v", ok, err)
		}
		if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", []byte(`{"status":"in_progress"}`)); !errors.Is(err, store.ErrReceiptFinal) {
			t.Fatalf("replacing a final receipt: %v, want ErrReceiptFinal", err)
		}
		err := s.CommitResponse(ctx, store.Commit{User: "u", Session: "s", ResponseID: "resp_1", Replica: "r1",
			Receipt: []byte(`{"status":"completed"}`), Messages: [][]byte{[]byte(`{"id":"m"}`)}, Release: true})
		if !errors.Is(err, store.ErrReceiptFinal) {
			t.Fatalf("commit over a final receipt: %v, want ErrReceiptFinal", err)
		}
		got, _, _ := s.Receipt(ctx, "u", "s", "resp_1")
		if string(got) != string(final) {
			t.Fatalf("receipt %s, want %s", got, final)
		}
		if msgs, _ := s.Messages(ctx, "u", "s", 0, 10); len(msgs) != 0 {
			t.Fatalf("a refused commit wrote the transcript: %d messages", len(msgs))
		}
	})
}

// A lease that lapsed while nobody took the session is taken again by its
// holder's renewal (a replica that lived through a store outage).
func TestRenewRetakesALapsedLease(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		begin := store.Begin{User: "u", Session: "s", ResponseID: "resp_1", CreateSession: true,
			Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute, Replica: "r1"}
		if _, err := s.BeginResponse(ctx, begin); err != nil {
			t.Fatal(err)
		}
		if err := s.Client().Del(ctx, s.sessionKeys("u", "s").lease).Err(); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.RenewLease(ctx, "u", "s", "resp_1", "r1", time.Minute); !ok || err != nil {
			t.Fatalf("renew of a lapsed, free lease: %v %v", ok, err)
		}
		b2 := begin
		b2.ResponseID, b2.CreateSession = "resp_2", false
		if _, err := s.BeginResponse(ctx, b2); !errors.Is(err, store.ErrSessionBusy) {
			t.Fatalf("second response on a held session: %v, want ErrSessionBusy", err)
		}
	})
}

// The sweeper leaves alone the lapsed runs it is told are not due, and
// records the replica that ran each.
func TestSweepLapsedAsksWhetherDue(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		begin := store.Begin{User: "u", Session: "s", ResponseID: "resp_1", CreateSession: true,
			Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Millisecond, Replica: "r1"}
		if _, err := s.BeginResponse(ctx, begin); err != nil {
			t.Fatal(err)
		}
		// The lease lapses (deleted by hand: the embedded store does not
		// expire keys by the clock).
		if err := s.Client().Del(ctx, s.sessionKeys("u", "s").lease).Err(); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Second)
		var asked []store.Lapsed
		notDue := func(l store.Lapsed) bool { asked = append(asked, l); return false }
		failed := func(store.Lapsed, []byte) []byte { return []byte(`{"status":"failed"}`) }
		swept, err := s.SweepLapsed(ctx, later, 10, notDue, failed)
		if err != nil || len(swept) != 0 || len(asked) != 1 || asked[0].Replica != "r1" {
			t.Fatalf("swept %v, asked %+v, err %v", swept, asked, err)
		}
		swept, err = s.SweepLapsed(ctx, later, 10, func(store.Lapsed) bool { return true }, failed)
		if err != nil || len(swept) != 1 {
			t.Fatalf("due run not swept: %v %v", swept, err)
		}
		if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != `{"status":"failed"}` {
			t.Fatalf("receipt %s", got)
		}
	})
}

// A control message to a replica that no longer listens is known to be
// lost (single-node Redis counts the receivers).
func TestSendControlToAGoneReplica(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		got := make(chan string, 1)
		hub, err := s.StartHub(ctx, "r1", func(p string) { got <- p })
		if err != nil {
			t.Fatal(err)
		}
		gone, err := s.SendControl(ctx, "r1", "hello")
		if err != nil || gone {
			t.Fatalf("to a listening replica: gone=%v err=%v", gone, err)
		}
		select {
		case p := <-got:
			if p != "hello" {
				t.Fatalf("payload %q", p)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the replica did not receive its control message")
		}
		hub.Close()
		deadline := time.Now().Add(5 * time.Second)
		for {
			gone, err = s.SendControl(ctx, "r1", "anyone?")
			if err != nil {
				t.Fatal(err)
			}
			if gone {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("a closed replica still counted as listening")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// Events written again (a flush whose answer was lost is retried with the
// next batch) are read once each.
func TestRepeatedEventsAreReadOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		ev := func(seq int) store.Event { return store.Event{Sequence: seq, Type: "x", JSON: []byte(`{}`)} }
		if err := s.AppendEvents(ctx, "u", "s", "resp_1", []store.Event{ev(0), ev(1)}); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendEvents(ctx, "u", "s", "resp_1", []store.Event{ev(0), ev(1), ev(2)}); err != nil {
			t.Fatal(err)
		}
		got, err := s.EventsAfter(ctx, "u", "s", "resp_1", -1, 10)
		if err != nil || len(got) != 3 {
			t.Fatalf("events %+v, %v; want 3", got, err)
		}
		for i, e := range got {
			if e.Sequence != i {
				t.Fatalf("events out of order or repeated: %+v", got)
			}
		}
	})
}
