package runtime

import (
	"context"
	"sync"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/store/stores"
)

// BenchmarkBusyAdmission measures what a message to a busy session costs
// to admit, in one run: "reject" is the 409 path (the session refuses the
// response), "enqueue" the same refusal followed by the queued response's
// one store operation and its control message (a background request: its
// caller takes the queued receipt). On the in-process store and, when
// redis-server is installed, a real Redis.
//
//	go test -run '^$' -bench BusyAdmission -benchmem ./runtime/
func BenchmarkBusyAdmission(b *testing.B) {
	for _, c := range testutil.Stores(b) {
		b.Run(c.Name, func(b *testing.B) {
			started, release := make(chan string, 1), make(chan struct{})
			var ran sync.Map
			st, err := stores.Open(context.Background(), stores.Options{URL: c.URL, KeyPrefix: testutil.Prefix(b)})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = st.Close() })
			s := New(Options{Store: st, Agent: blockingAgent(started, release, &ran)(nil), MaxQueuedPerSession: 1 << 30})
			if err := s.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() {
				close(release)
				_ = s.Shutdown(context.Background())
			})
			ctx := context.Background()
			first, err := s.StartResponse(ctx, testUser, ResponseRequest{Input: "block", Background: true})
			if err != nil {
				b.Fatal(err)
			}
			<-started
			session := first.SessionID
			for _, strategy := range []string{BusyReject, BusyEnqueue} {
				b.Run(strategy, func(b *testing.B) {
					req := ResponseRequest{Input: "again", SessionID: session, OnBusy: strategy, Background: true}
					b.ReportAllocs()
					for b.Loop() {
						_, err := s.StartResponse(ctx, testUser, req)
						if (err == nil) != (strategy == BusyEnqueue) {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
