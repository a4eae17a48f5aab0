package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// BenchTurn measures a store's share of one response, the same on every
// implementation: begin (create the session, take the lease, write the
// receipt) and commit (receipt, four events, two transcript messages,
// release), from 16 goroutines per CPU.
func BenchTurn(b *testing.B, s store.Store) {
	ctx := context.Background()
	events := []store.Event{
		{Sequence: 0, Type: "response.created", JSON: []byte(`{"type":"response.created","sequence":0}`)},
		{Sequence: 1, Type: "response.text.delta", JSON: []byte(`{"type":"response.text.delta","sequence":1,"delta":"Echo: "}`)},
		{Sequence: 2, Type: "response.text.delta", JSON: []byte(`{"type":"response.text.delta","sequence":2,"delta":"hello"}`)},
		{Sequence: 3, Type: "response.completed", JSON: []byte(`{"type":"response.completed","sequence":3}`)},
	}
	msgs := [][]byte{[]byte(`{"id":"m1","role":"user","content":"hello"}`), []byte(`{"id":"m2","role":"assistant","content":"Echo: hello"}`)}
	b.ReportAllocs()
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			sid, rid := newID(), "resp_"+newID()
			if _, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: sid, ResponseID: rid, CreateSession: true, Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute, Now: "t"}); err != nil {
				b.Fatal(err)
			}
			if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: sid, ResponseID: rid, Receipt: []byte(`{"status":"completed"}`), Events: events, Messages: msgs, Release: true, Now: "t"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// newID is a random ID of 24 hex characters.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
