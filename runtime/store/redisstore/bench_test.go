package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/harnest/harnest/runtime/store"

	"github.com/harnest/harnest/internal/testutil"
)

// BenchmarkTurn measures the store's share of one response: begin (create
// the session, take the lease, write the receipt) and commit (receipt,
// events, two transcript messages, release).
func BenchmarkTurn(b *testing.B) {
	for _, c := range testutil.Stores(b) {
		b.Run(c.Name, func(b *testing.B) {
			s, err := Open(context.Background(), Options{URL: c.URL, KeyPrefix: testutil.Prefix(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			events := []store.Event{
				{Sequence: 0, Type: "response.created", JSON: []byte(`{"type":"response.created","sequence":0}`)},
				{Sequence: 1, Type: "response.text.delta", JSON: []byte(`{"type":"response.text.delta","sequence":1,"delta":"Echo: "}`)},
				{Sequence: 2, Type: "response.text.delta", JSON: []byte(`{"type":"response.text.delta","sequence":2,"delta":"hello"}`)},
				{Sequence: 3, Type: "response.completed", JSON: []byte(`{"type":"response.completed","sequence":3}`)},
			}
			msgs := [][]byte{[]byte(`{"id":"m1","role":"user","content":"hello"}`), []byte(`{"id":"m2","role":"assistant","content":"Echo: hello"}`)}
			b.ResetTimer()
			b.SetParallelism(16)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					sid, rid := newTestID(), "resp_"+newTestID()
					if _, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: sid, ResponseID: rid, CreateSession: true, Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Minute, Now: "t"}); err != nil {
						b.Fatal(err)
					}
					if err := s.CommitResponse(ctx, store.Commit{User: "u", Session: sid, ResponseID: rid, Receipt: []byte(`{"status":"completed"}`), Events: events, Messages: msgs, Release: true, Now: "t"}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
