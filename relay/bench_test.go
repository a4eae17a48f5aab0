package relay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkRelayedTurn measures a whole relayed turn through POST
// /responses with an outside agent that answers at once: the turn's
// latency minus an echo turn's is what the relay adds.
func BenchmarkRelayedTurn(b *testing.B) {
	e := newEnv(b, "", envSetup{})
	token, _ := e.pair("Bench", "cli")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // the outside agent: poll, answer at once
		client := &http.Client{Timeout: 30 * time.Second}
		for ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, "GET", e.URL+"/api/outside-agents/v1/inbox?wait=20", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := client.Do(req)
			if err != nil {
				continue
			}
			var v struct{ Items []inboxItem }
			_ = json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
			for _, it := range v.Items {
				body := `{"relay_id":"` + it.RelayID + `","text":"ok"}`
				req, _ := http.NewRequestWithContext(ctx, "POST", e.URL+"/api/outside-agents/v1/replies", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				if resp, err := client.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%25 == 0 {
			e.Clock.Advance(time.Minute) // keep the poll bucket (60 a minute) open
		}
		if r := wait(b, e.turn(ownerToken, "ping")); r.Status != 200 {
			b.Fatalf("turn: %d %s", r.Status, r.Body)
		}
	}
}
