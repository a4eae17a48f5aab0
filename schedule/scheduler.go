package schedule

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/harnest/harnest/internal/defaults"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Missed-fire policies (Options.MissedFires).
const (
	MissedSkip    = "skip"    // a missed fire does not run
	MissedRunOnce = "runOnce" // the fires missed run once, together
)

// Options configure the schedules of a replica: its Scheduler and routes.
type Options struct {
	Store   store.Schedules
	Service *runtime.Service
	// MaxPerUser bounds each user's schedules (schedules.maxPerUser).
	MaxPerUser int
	// MissedFires is the policy of fires found more than MissedAfter late:
	// MissedSkip or MissedRunOnce (the default).
	MissedFires string
	MissedAfter time.Duration // default 60 s
	// Tick is how often the replica looks for due schedules and pending
	// fires (default 250 ms).
	Tick time.Duration
	// Hold is how long a claimer has to start a fire before another
	// replica takes it (default 30 s).
	Hold time.Duration
	// IsOwner says who may manage everyone's schedules (?user=).
	IsOwner func(user string) bool
	// MaxBodyBytes bounds a request body (default 64 KiB).
	MaxBodyBytes int
	Log          *slog.Logger
	Now          func() time.Time
	// OnFire, when set, is told of every fire once it started (or could
	// not), and again with its Outcome once its response is over
	// (outcome.go): the server posts both to the owner's feed.
	OnFire func(ctx context.Context, user, scheduleID string, fire FireView)
}

// Scheduler fires the due schedules of every user, on every replica: each
// fire exactly once across them (see the package's doc).
type Scheduler struct {
	o       Options
	stop    context.CancelFunc
	done    chan struct{}
	closed  sync.Once
	watches sync.WaitGroup  // watchOutcome's follows
	watchMu sync.Mutex      // orders a watch's start with Close's wait
	ctx     context.Context // ended by Close; the watches' context
}

// New makes a replica's scheduler, with the defaults filled in.
func New(o Options) *Scheduler {
	if o.MissedFires == "" {
		o.MissedFires = MissedRunOnce
	}
	o.MissedAfter = defaults.Positive(o.MissedAfter, time.Minute)
	o.Tick = defaults.Positive(o.Tick, 250*time.Millisecond)
	o.Hold = defaults.Positive(o.Hold, 30*time.Second)
	o.MaxBodyBytes = defaults.Positive(o.MaxBodyBytes, 64<<10)
	o.Log = defaults.Logger(o.Log)
	o.Now = defaults.Clock(o.Now)
	if o.IsOwner == nil {
		o.IsOwner = func(string) bool { return false }
	}
	return &Scheduler{o: o, done: make(chan struct{})}
}

// Start runs the scheduler until Close.
func (s *Scheduler) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.watchMu.Lock()
	s.stop, s.ctx = cancel, ctx
	s.watchMu.Unlock()
	go s.run(ctx)
}

// Close stops the scheduler and waits for its pass to end. Fires it
// claimed and did not start are started by another replica.
func (s *Scheduler) Close() {
	s.closed.Do(func() {
		if s.stop == nil {
			close(s.done)
			return
		}
		s.watchMu.Lock()
		s.stop() // a watch not begun yet sees it and does not begin
		s.watchMu.Unlock()
		<-s.done
		s.watches.Wait()
	})
}

func (s *Scheduler) run(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.o.Tick)
	defer t.Stop()
	for {
		s.pass(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// passLimit bounds the schedules (and pending fires) one pass handles.
const passLimit = 100

// pass fires what is due and starts the pending fires whose claimer died.
func (s *Scheduler) pass(ctx context.Context) {
	now := s.o.Now()
	due, err := s.o.Store.DueSchedules(ctx, now, passLimit)
	if err != nil {
		if ctx.Err() == nil {
			s.o.Log.Warn("schedules: cannot read the due schedules", "err", err)
		}
		return
	}
	for _, key := range due {
		if ctx.Err() != nil {
			return
		}
		s.fireDue(ctx, key, now)
	}
	pending, err := s.o.Store.PendingFires(ctx, now, passLimit)
	if err != nil {
		return
	}
	for _, key := range pending {
		if ctx.Err() != nil {
			return
		}
		fire, taken, err := s.o.Store.TakeFire(ctx, key, now, s.o.Hold)
		if err != nil || !taken {
			continue
		}
		s.o.Log.Info("schedules: starting a fire its claimer did not start", "schedule", key.Schedule, "fire", key.Seq)
		s.start(ctx, key, fire)
	}
}

// fireDue claims the due fire of one schedule and starts it: the claim
// compares the next fire time read here, so of the replicas that read it
// one claims it.
func (s *Scheduler) fireDue(ctx context.Context, key store.ScheduleKey, now time.Time) {
	rec, found, err := s.o.Store.GetSchedule(ctx, key.User, key.ID)
	if err != nil || !found || rec.Paused || rec.NextFire.IsZero() || rec.NextFire.After(now) {
		return
	}
	def, w, err := decodeDefinition(rec.JSON)
	if err != nil {
		s.o.Log.Warn("schedules: a stored schedule does not parse; it is paused", "schedule", key.ID, "err", err)
		rec.Paused = true
		_ = s.o.Store.UpdateSchedule(ctx, rec)
		return
	}
	due := rec.NextFire
	claim := store.ScheduleClaim{User: key.User, ID: key.ID, Due: due, Next: w.after(due), Now: now, Lease: s.o.Hold}
	missed := now.Sub(due) > s.o.MissedAfter
	if missed {
		claim.Next = w.after(now) // everything missed up to now is one fire, or none
	}
	if !missed || s.o.MissedFires == MissedRunOnce {
		claim.Fire = newFire(def, due, false)
	}
	fire, claimed, err := s.o.Store.ClaimFire(ctx, claim)
	if err != nil || !claimed || claim.Fire == nil {
		if missed && claimed {
			s.o.Log.Info("schedules: skipped missed fires", "schedule", key.ID, "due", due, "next", claim.Next)
		}
		return
	}
	s.start(ctx, store.FireKey{User: key.User, Schedule: key.ID, Seq: fire.Seq}, fire)
}

// newFire is a fire of a definition due at at, with the session and
// response it will use chosen now.
func newFire(def Definition, at time.Time, manual bool) *store.FireRecord {
	f := &store.FireRecord{At: at, Manual: manual, SessionID: def.SessionID, ResponseID: runtime.NewResponseID()}
	if f.SessionID == "" {
		f.SessionID, f.NewSession = runtime.NewSessionID(), true
	}
	return f
}
