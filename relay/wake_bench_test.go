package relay_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/relay"
	"github.com/harnest/harnest/store"
)

// BenchmarkWake measures how soon a waiting poll learns of a new item, on
// each store, and reports the median and 90th percentile:
//
//   - listener: from the start of EnqueueRelayItem to the signal of a
//     ListenRelayInbox listener (the store's wake-up alone);
//   - poll: from the start of EnqueueRelayItem to the whole answer of a
//     GET inbox?wait=20 that was waiting (wake-up, reads, HTTP).
func BenchmarkWake(b *testing.B) {
	for _, c := range testutil.Stores(b) {
		b.Run(c.Name+"/listener", func(b *testing.B) { benchListenerWake(b, c.URL) })
		b.Run(c.Name+"/poll", func(b *testing.B) { benchPollWake(b, c.URL) })
	}
}

// reportLatencies reports the median and 90th percentile of d.
func reportLatencies(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2])/1e3, "p50-µs")
	b.ReportMetric(float64(d[len(d)*9/10])/1e3, "p90-µs")
}

func benchListenerWake(b *testing.B, url string) {
	ctx := context.Background()
	st := openStore(b, url, testutil.Prefix(b))
	now := time.Now()
	if err := st.CreatePairingCode(ctx, store.PairingCode{Hash: "c", Owner: "alice", Name: "Box", Kind: "cli",
		ExpiresAt: now.Add(time.Minute)}, now); err != nil {
		b.Fatal(err)
	}
	if _, err := st.ExchangePairingCode(ctx, store.Pairing{CodeHash: "c", Name: "Box", Kind: "cli", ParticipantID: "p",
		TokenHash: "t", Now: now, TTL: time.Hour}); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		wake, stop, err := st.ListenRelayInbox(ctx, "alice", "p")
		if err != nil {
			b.Fatal(err)
		}
		it := store.RelayItem{ID: fmt.Sprint("i", i), Participant: "p", Text: "q", AskedAt: time.Now(), DeadlineAt: time.Now().Add(time.Minute)}
		start := time.Now()
		if err := st.EnqueueRelayItem(ctx, "alice", it, relay.MaxPending); err != nil {
			b.Fatal(err)
		}
		select {
		case <-wake:
		case <-time.After(5 * time.Second):
			b.Fatal("the listener was not woken")
		}
		lat = append(lat, time.Since(start))
		stop()
		if err := st.CancelRelayItem(ctx, "alice", "p", it.ID); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportLatencies(b, lat)
}

func benchPollWake(b *testing.B, url string) {
	ctx := context.Background()
	e := newEnv(b, url, envSetup{})
	token, pid := e.pair("Box", "cli")
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%50 == 0 {
			e.Clock.Advance(time.Minute) // keep the poll bucket (60 a minute) open
		}
		answered := make(chan error, 1)
		go func() {
			req, _ := http.NewRequest("GET", e.URL+relay.APIPrefix+"inbox?wait=20", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			answered <- err
		}()
		time.Sleep(5 * time.Millisecond) // let the poll start waiting (not measured)
		now := e.Clock.Now()
		it := store.RelayItem{ID: fmt.Sprint("i", i), Participant: pid, Text: "q", AskedAt: now, DeadlineAt: now.Add(time.Minute)}
		start := time.Now()
		if err := e.Store.EnqueueRelayItem(ctx, "alice", it, relay.MaxPending); err != nil {
			b.Fatal(err)
		}
		select {
		case err := <-answered:
			if err != nil {
				b.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			b.Fatal("the poll was not woken")
		}
		lat = append(lat, time.Since(start))
		if err := e.Store.CancelRelayItem(ctx, "alice", pid, it.ID); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportLatencies(b, lat)
}
