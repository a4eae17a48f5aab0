package schedule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// The operations behind the routes; each returns a fieldError (400), a
// runtime error, or a store refusal, which the routes map (routes.go).

var (
	errNotFound = &runtime.Error{Kind: runtime.ErrNotFound, Code: "schedule_not_found", Detail: "Schedule not found"}
	errChanged  = &runtime.Error{Kind: runtime.ErrConflict, Code: "schedule_changed",
		Detail: "The schedule changed (or fired) while it was being updated; read it and retry"}
)

// limitError refuses a schedule past the user's bound (429).
type limitError string

func (e limitError) Error() string { return string(e) }

func newScheduleID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "sch_" + hex.EncodeToString(b[:])
}

// check validates a definition for user and returns its first fire time
// after now (zero when it is not to fire: never for a valid one).
func (s *Scheduler) check(ctx context.Context, user string, d Definition) (when, error) {
	w, err := parseWhen(d)
	if err != nil {
		return w, err
	}
	if err := s.checkInput(d); err != nil {
		return w, err
	}
	if d.OnBusy != "" && !runtime.ValidOnBusy(d.OnBusy) {
		return w, fieldError{"onBusy", "must be reject, enqueue, interrupt or rollback"}
	}
	if d.SessionID != "" {
		if _, err := s.o.Service.GetSession(ctx, runtime.Principal{UserID: user}, d.SessionID); err != nil {
			if errors.Is(runtime.AsError(err).Kind, runtime.ErrNotFound) {
				return w, fieldError{"sessionId", "names no session of this user; omit it for a new session per fire"}
			}
			return w, err
		}
	}
	if d.Webhook != nil {
		if err := s.o.Service.CheckWebhook(d.Webhook); err != nil {
			return w, fieldError{"webhook.url", strings.TrimPrefix(runtime.AsError(err).Detail, "webhook.url ")}
		}
	}
	return w, nil
}

// create stores a new schedule of user.
func (s *Scheduler) create(ctx context.Context, user string, f fields) (View, error) {
	now := s.o.Now().UTC()
	d := Definition{CreatedAt: now, UpdatedAt: now}
	if err := f.apply(&d); err != nil {
		return View{}, err
	}
	w, err := s.check(ctx, user, d)
	if err != nil {
		return View{}, err
	}
	next, err := w.first(now)
	if err != nil {
		return View{}, err
	}
	rec := store.ScheduleRecord{User: user, ID: newScheduleID(), NextFire: next, Paused: f.Paused != nil && *f.Paused}
	rec.JSON, _ = jsonOf(d)
	if err := s.o.Store.CreateSchedule(ctx, rec, s.o.MaxPerUser); err != nil {
		if errors.Is(err, store.ErrScheduleLimit) {
			return View{}, limitError(fmt.Sprintf("This user has %d schedules, the most schedules.maxPerUser allows; delete one first", s.o.MaxPerUser))
		}
		return View{}, err
	}
	rec.Version = 1
	return viewOf(rec, d), nil
}

// get reads one schedule of user.
func (s *Scheduler) get(ctx context.Context, user, id string) (store.ScheduleRecord, Definition, error) {
	rec, found, err := s.o.Store.GetSchedule(ctx, user, id)
	if err != nil {
		return rec, Definition{}, err
	}
	if !found {
		return rec, Definition{}, errNotFound
	}
	d, _, err := decodeDefinition(rec.JSON)
	return rec, d, err
}

// patchTries bounds how often a change is applied again to a schedule
// that fired (or changed) between its read and its write.
const patchTries = 5

// patch changes a schedule: the members f holds, applied to the schedule
// as it is when it is written. A fire (or another change) between the read
// and the write makes the store refuse it; the members are then applied to
// the schedule read again, so a pause or a PATCH that meets a fire is not
// refused (errChanged only past patchTries).
func (s *Scheduler) patch(ctx context.Context, user, id string, f fields) (View, error) {
	for try := 1; ; try++ {
		v, err := s.patchOnce(ctx, user, id, f)
		if err != errChanged || try == patchTries {
			return v, err
		}
	}
}

// patchOnce applies f to the schedule as read now. A change of its timing
// (or a resume) sets the next fire time from now; pausing keeps it.
func (s *Scheduler) patchOnce(ctx context.Context, user, id string, f fields) (View, error) {
	rec, d, err := s.get(ctx, user, id)
	if err != nil {
		return View{}, err
	}
	now := s.o.Now().UTC()
	if err := f.apply(&d); err != nil {
		return View{}, err
	}
	w, err := s.check(ctx, user, d)
	if err != nil {
		return View{}, err
	}
	retimed := f.Cron != nil || f.TimeZone != nil || f.At != nil
	resumed := f.Paused != nil && !*f.Paused && rec.Paused
	if f.Paused != nil {
		rec.Paused = *f.Paused
	}
	if retimed || resumed {
		if rec.NextFire, err = w.first(now); err != nil {
			if !retimed && w.sched == nil {
				rec.NextFire = d.At // a one-off resumed after its time: due now, as a missed fire
			} else {
				return View{}, err
			}
		}
	}
	d.UpdatedAt = now
	rec.JSON, _ = jsonOf(d)
	if err := s.o.Store.UpdateSchedule(ctx, rec); err != nil {
		switch {
		case errors.Is(err, store.ErrScheduleNotFound):
			return View{}, errNotFound
		case errors.Is(err, store.ErrScheduleChanged):
			return View{}, errChanged
		}
		return View{}, err
	}
	rec.Version++
	return viewOf(rec, d), nil
}

// runNow records a fire of the schedule now, whatever its timing (also
// paused), and starts it.
func (s *Scheduler) runNow(ctx context.Context, user, id string) (FireView, error) {
	_, d, err := s.get(ctx, user, id)
	if err != nil {
		return FireView{}, err
	}
	now := s.o.Now()
	fire, claimed, err := s.o.Store.ClaimFire(ctx, store.ScheduleClaim{User: user, ID: id, Now: now, Lease: s.o.Hold, Fire: newFire(d, now, true)})
	if err != nil {
		return FireView{}, err
	}
	if !claimed {
		return FireView{}, errNotFound
	}
	key := store.FireKey{User: user, Schedule: id, Seq: fire.Seq}
	s.start(ctx, key, fire)
	fires, err := s.o.Store.ListFires(ctx, user, id, fire.Seq+1, 1)
	if err == nil && len(fires) == 1 {
		fire = fires[0]
	}
	return fireViewOf(fire), nil
}
