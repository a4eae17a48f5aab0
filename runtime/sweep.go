package runtime

import (
	"context"
	"encoding/json"
	"time"

	"github.com/harnest/harnest/runtime/store"
)

// sweep periodically fails the runs whose lease lapsed: their replica died
// (or lost Redis) and nobody renews them. Any replica may do it; the store
// makes sure a receipt changes once.
func (s *Service) sweep(ctx context.Context) {
	defer close(s.sweeperDone)
	t := time.NewTicker(s.sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		swept, err := s.store.SweepLapsed(ctx, time.Now(), 100, s.lapsedReceipt)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("sweeping lapsed runs failed", "err", err)
		}
		for _, run := range swept {
			s.log.Warn("failed a response whose replica stopped renewing it", "responseId", run.ResponseID)
		}
	}
}

// lapsedReceipt is the failed receipt that replaces a receipt that was not
// final; nil keeps a final one.
func (s *Service) lapsedReceipt(run store.Lapsed, receipt []byte) []byte {
	if isTerminal(receipt) {
		return nil
	}
	env := Envelope{ID: run.ResponseID, SessionID: run.Session, EnvelopeBody: EnvelopeBody{
		Status: StatusFailed, Output: []OutputItem{}, Metadata: json.RawMessage("{}"),
		Error: &EnvelopeError{Code: CodeReplicaLost},
	}}
	b, _ := json.Marshal(env)
	return b
}
