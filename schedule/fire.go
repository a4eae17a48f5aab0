package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// start starts a claimed (or taken) fire as a background turn with the
// response ID its claim chose, and records it started. When the store
// cannot be reached or the replica is stopping, the fire stays pending: a
// replica takes it once its hold lapses. A response that already started
// (its receipt exists: the claimer died after starting it) is not started
// again.
func (s *Scheduler) start(ctx context.Context, key store.FireKey, f store.FireRecord) {
	rec, found, err := s.o.Store.GetSchedule(ctx, key.User, key.Schedule)
	if err != nil || !found {
		return // retried once the hold lapses; a deleted schedule's fires are gone
	}
	def, _, err := decodeDefinition(rec.JSON)
	if err != nil {
		s.started(ctx, key, "", "the schedule's definition does not parse")
		return
	}
	p := runtime.Principal{UserID: key.User}
	svc := s.o.Service
	if f.NewSession {
		if _, err := svc.CreateSession(ctx, p, f.SessionID, nil); err != nil && runtime.AsError(err).Code != "session_exists" {
			s.failed(ctx, key, err)
			return
		}
	}
	if _, err := svc.GetResponse(ctx, p, f.SessionID, f.ResponseID); err == nil {
		s.started(ctx, key, f.ResponseID, "")
		return
	} else if !errors.Is(err, runtime.ErrNotFound) {
		return // the store: retried once the hold lapses
	}
	meta, _ := json.Marshal(map[string]any{"scheduleId": key.Schedule, "fire": key.Seq})
	r, err := svc.StartResponse(ctx, p, runtime.ResponseRequest{
		Input: def.Input, Parts: def.parts(), SessionID: f.SessionID, Background: true, Transport: runtime.TransportSchedule,
		Webhook: def.Webhook, OnBusy: def.OnBusy, ResponseID: f.ResponseID, Metadata: meta,
	})
	if err != nil {
		s.failed(ctx, key, err)
		return
	}
	s.started(ctx, key, r.ID, "")
}

// failed records a fire that could not start, unless the reason is
// passing (the store, or the replica stopping): then it stays pending.
func (s *Scheduler) failed(ctx context.Context, key store.FireKey, err error) {
	e := runtime.AsError(err)
	if errors.Is(e.Kind, runtime.ErrUnavailable) {
		s.o.Log.Warn("schedules: a fire could not start; another pass retries it", "schedule", key.Schedule, "fire", key.Seq, "err", err)
		return
	}
	s.started(ctx, key, "", fmt.Sprintf("%s: %s", e.Code, e.Detail))
}

func (s *Scheduler) started(ctx context.Context, key store.FireKey, responseID, failure string) {
	if _, err := s.o.Store.FireStarted(ctx, key, responseID, failure); err != nil {
		s.o.Log.Warn("schedules: cannot record a fire started", "schedule", key.Schedule, "fire", key.Seq, "err", err)
		return
	}
	if s.o.OnFire == nil {
		return
	}
	fires, err := s.o.Store.ListFires(ctx, key.User, key.Schedule, key.Seq+1, 1)
	if err == nil && len(fires) == 1 && fires[0].Seq == key.Seq {
		fire := fireViewOf(fires[0])
		s.o.OnFire(ctx, key.User, key.Schedule, fire)
		s.watchOutcome(s.watchContext(ctx), key, fire)
	}
}
