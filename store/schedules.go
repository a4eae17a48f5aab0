package store

import (
	"context"
	"time"
)

// Schedules are users' schedules (turns that start themselves at the times
// a cron expression or a one-off time names) and the history of their
// fires. The store knows no cron: the owner (package schedule) computes
// each next fire time and hands it in; the store makes each fire happen
// exactly once across replicas, by claiming it with a compare-and-set on
// the schedule's next fire time in the same operation that records it.
// Every schedule key lives under one hash tag, so a cluster runs each
// operation on one node. Owner: schedule.
type Schedules interface {
	// CreateSchedule stores a new schedule (Version is set to 1).
	// ErrScheduleExists: the user has one with that ID; ErrScheduleLimit:
	// the user has max schedules already (max < 1: no bound). Nothing is
	// stored then.
	CreateSchedule(ctx context.Context, rec ScheduleRecord, max int) error
	// GetSchedule reads one of the user's schedules.
	GetSchedule(ctx context.Context, user, id string) (rec ScheduleRecord, found bool, err error)
	// ListSchedules returns up to limit of the user's schedules with IDs
	// after after, in ID order.
	ListSchedules(ctx context.Context, user, after string, limit int) ([]ScheduleRecord, error)
	// UpdateSchedule replaces a schedule's definition, pause and next
	// fire time when its stored Version is still rec.Version, and bumps
	// the version; Fires stays as stored. ErrScheduleNotFound: no such
	// schedule; ErrScheduleChanged: it changed (or fired) since it was
	// read. Nothing is written then.
	UpdateSchedule(ctx context.Context, rec ScheduleRecord) error
	// DeleteSchedule removes a schedule with its history of fires.
	DeleteSchedule(ctx context.Context, user, id string) (found bool, err error)
	// DueSchedules returns up to limit schedules that are not paused and
	// whose next fire time is at or before now, the earliest first.
	DueSchedules(ctx context.Context, now time.Time, limit int) ([]ScheduleKey, error)
	// ClaimFire claims a fire of a schedule, atomically: when the schedule
	// exists, is not paused (unless c.Due is zero) and its next fire time
	// is still c.Due (a zero c.Due claims a fire now, run-now, and leaves
	// the next fire time as it is), it records c.Fire (numbered
	// Fires+1, unstarted, held by its claimer until c.Now+c.Lease) and
	// sets the next fire time to c.Next (zero: none, the schedule is done).
	// With c.Fire nil it only advances the next fire time (a skipped fire).
	// claimed is false, and nothing is written, when another claimed it
	// first or the schedule changed.
	ClaimFire(ctx context.Context, c ScheduleClaim) (fire FireRecord, claimed bool, err error)
	// PendingFires returns up to limit fires that are recorded, not
	// started, and whose claimer's hold lapsed at or before now: their
	// claimer died before starting them.
	PendingFires(ctx context.Context, now time.Time, limit int) ([]FireKey, error)
	// TakeFire takes a pending fire whose hold lapsed at or before now,
	// holding it until now+lease. taken is false when it started, or
	// another holds it, or it is gone.
	TakeFire(ctx context.Context, key FireKey, now time.Time, lease time.Duration) (fire FireRecord, taken bool, err error)
	// FireStarted records that a fire started its response (or could not
	// start: failure says why). A started fire never changes again;
	// found is false when the fire is gone.
	FireStarted(ctx context.Context, key FireKey, responseID, failure string) (found bool, err error)
	// ListFires returns up to limit of a schedule's fires numbered below
	// before (before < 1: from the newest), newest first. The store keeps
	// the newest MaxFiresKept fires of each schedule.
	ListFires(ctx context.Context, user, id string, before int64, limit int) ([]FireRecord, error)
}

// MaxFiresKept is how many of a schedule's fires the store keeps.
const MaxFiresKept = 1000

// ScheduleRecord is one schedule as stored.
type ScheduleRecord struct {
	User string
	ID   string
	// Version counts the writes of the schedule (updates and claims):
	// UpdateSchedule compares it.
	Version int64
	Paused  bool
	// NextFire is when the schedule fires next, to the millisecond; zero
	// for never (a one-off that fired).
	NextFire time.Time
	// Fires is how many fires were recorded: the number of the last one.
	Fires int64
	// JSON is the owner's definition (cron, time zone, input, session),
	// kept as it is. Slices the store returns must not be modified.
	JSON []byte
}

// ScheduleKey names a schedule.
type ScheduleKey struct {
	User string
	ID   string
}

// FireKey names one fire of a schedule.
type FireKey struct {
	User     string
	Schedule string
	Seq      int64
}

// ScheduleClaim asks ClaimFire for one fire.
type ScheduleClaim struct {
	User string
	ID   string
	// Due is the next fire time the claimer read (zero: a fire now).
	Due time.Time
	// Next is the next fire time after this one (zero: none). Ignored
	// when Due is zero.
	Next time.Time
	// Fire is the fire to record (Seq and the hold are set by the store);
	// nil only advances the next fire time.
	Fire *FireRecord
	// Now and Lease: the claimer holds the fire until Now+Lease.
	Now   time.Time
	Lease time.Duration
}

// FireRecord is one fire of a schedule.
type FireRecord struct {
	Seq int64 `json:"seq"`
	// At is the time the fire was due (or asked for, run-now).
	At time.Time `json:"at"`
	// Manual is set for a fire asked for with run-now.
	Manual bool `json:"manual,omitempty"`
	// SessionID and ResponseID are chosen when the fire is claimed, so
	// whoever starts it starts the same response.
	SessionID  string `json:"sessionId"`
	ResponseID string `json:"responseId"`
	// NewSession is set when the fire makes its session.
	NewSession bool `json:"newSession,omitempty"`
	// Started is set once the response started or could not (Failure).
	Started bool   `json:"started,omitempty"`
	Failure string `json:"failure,omitempty"`
	// HeldUntil is when the claimer's (or taker's) hold lapses.
	HeldUntil time.Time `json:"heldUntil"`
}
