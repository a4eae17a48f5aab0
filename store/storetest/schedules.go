package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// testSchedules is the contract of the schedules slice: definitions kept
// per user within a bound, and each fire claimed exactly once.
func testSchedules(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"CreateGetListDelete":        schedulesCreateGetListDelete,
		"BoundPerUser":               schedulesBoundPerUser,
		"UsersAreIsolated":           schedulesUsersAreIsolated,
		"UpdateComparesTheVersion":   schedulesUpdateComparesTheVersion,
		"DueAndPaused":               schedulesDueAndPaused,
		"ConcurrentClaimsOneWins":    schedulesConcurrentClaimsOneWins,
		"SkipAdvancesWithoutAFire":   schedulesSkipAdvancesWithoutAFire,
		"RunNowKeepsTheNextFire":     schedulesRunNowKeepsTheNextFire,
		"PendingFiresAreTakenOnce":   schedulesPendingFiresAreTakenOnce,
		"StartedFireNeverChanges":    schedulesStartedFireNeverChanges,
		"FiresPageNewestFirst":       schedulesFiresPageNewestFirst,
		"DeleteDropsFiresAndIndexes": schedulesDeleteDropsFiresAndIndexes,
	})
}

var schedT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func schedRec(user, id string, next time.Time) store.ScheduleRecord {
	return store.ScheduleRecord{User: user, ID: id, NextFire: next, JSON: fmt.Appendf(nil, `{"id":%q}`, id)}
}

func mustCreateSchedule(t *testing.T, s store.Store, rec store.ScheduleRecord) {
	t.Helper()
	if err := s.CreateSchedule(ctx, rec, 0); err != nil {
		t.Fatalf("CreateSchedule(%s/%s): %v", rec.User, rec.ID, err)
	}
}

func mustClaimFire(t *testing.T, s store.Store, c store.ScheduleClaim) (store.FireRecord, bool) {
	t.Helper()
	f, ok, err := s.ClaimFire(ctx, c)
	if err != nil {
		t.Fatalf("ClaimFire: %v", err)
	}
	return f, ok
}

func fireAt(at time.Time, rid string) *store.FireRecord {
	return &store.FireRecord{At: at, SessionID: "sess_" + rid, ResponseID: rid}
}

func schedulesCreateGetListDelete(t *testing.T, s store.Store) {
	for _, id := range []string{"b", "a", "c"} {
		mustCreateSchedule(t, s, schedRec("u", id, schedT0))
	}
	if err := s.CreateSchedule(ctx, schedRec("u", "a", schedT0), 0); !errors.Is(err, store.ErrScheduleExists) {
		t.Fatalf("second create of a: %v, want ErrScheduleExists", err)
	}
	rec, found, err := s.GetSchedule(ctx, "u", "a")
	if err != nil || !found || rec.Version != 1 || rec.Fires != 0 || !rec.NextFire.Equal(schedT0) || string(rec.JSON) != `{"id":"a"}` {
		t.Fatalf("GetSchedule = %+v %v %v", rec, found, err)
	}
	page, err := s.ListSchedules(ctx, "u", "", 2)
	if err != nil || len(page) != 2 || page[0].ID != "a" || page[1].ID != "b" {
		t.Fatalf("first page = %+v, %v", page, err)
	}
	page, err = s.ListSchedules(ctx, "u", "b", 2)
	if err != nil || len(page) != 1 || page[0].ID != "c" {
		t.Fatalf("second page = %+v, %v", page, err)
	}
	if found, err := s.DeleteSchedule(ctx, "u", "b"); err != nil || !found {
		t.Fatalf("DeleteSchedule = %v, %v", found, err)
	}
	if found, _ := s.DeleteSchedule(ctx, "u", "b"); found {
		t.Fatal("a deleted schedule was found again")
	}
	if _, found, _ := s.GetSchedule(ctx, "u", "b"); found {
		t.Fatal("GetSchedule found a deleted schedule")
	}
}

func schedulesBoundPerUser(t *testing.T, s store.Store) {
	for i := range 3 {
		if err := s.CreateSchedule(ctx, schedRec("u", fmt.Sprint(i), schedT0), 3); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	if err := s.CreateSchedule(ctx, schedRec("u", "x", schedT0), 3); !errors.Is(err, store.ErrScheduleLimit) {
		t.Fatalf("fourth create: %v, want ErrScheduleLimit", err)
	}
	if _, found, _ := s.GetSchedule(ctx, "u", "x"); found {
		t.Fatal("a refused schedule was stored")
	}
	if err := s.CreateSchedule(ctx, schedRec("v", "x", schedT0), 3); err != nil {
		t.Fatalf("another user's create: %v", err)
	}
	if _, err := s.DeleteSchedule(ctx, "u", "0"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSchedule(ctx, schedRec("u", "x", schedT0), 3); err != nil {
		t.Fatalf("create after a delete: %v", err)
	}
}

func schedulesUsersAreIsolated(t *testing.T, s store.Store) {
	mustCreateSchedule(t, s, schedRec("u", "a", schedT0))
	mustCreateSchedule(t, s, schedRec("u:a", "", schedT0))
	if _, found, _ := s.GetSchedule(ctx, "v", "a"); found {
		t.Fatal("another user read the schedule")
	}
	if page, _ := s.ListSchedules(ctx, "v", "", 10); len(page) != 0 {
		t.Fatalf("another user listed %+v", page)
	}
	if found, _ := s.DeleteSchedule(ctx, "v", "a"); found {
		t.Fatal("another user deleted the schedule")
	}
	if _, ok := mustClaimFire(t, s, store.ScheduleClaim{User: "v", ID: "a", Due: schedT0, Now: schedT0, Lease: time.Second, Fire: fireAt(schedT0, "r")}); ok {
		t.Fatal("another user claimed a fire")
	}
	if fires, _ := s.ListFires(ctx, "u", "a", 0, 10); len(fires) != 0 {
		t.Fatalf("fires = %+v", fires)
	}
}

func schedulesUpdateComparesTheVersion(t *testing.T, s store.Store) {
	mustCreateSchedule(t, s, schedRec("u", "a", schedT0))
	rec, _, _ := s.GetSchedule(ctx, "u", "a")
	stale := rec
	rec.JSON, rec.NextFire = []byte(`{"v":2}`), schedT0.Add(time.Hour)
	if err := s.UpdateSchedule(ctx, rec); err != nil {
		t.Fatalf("UpdateSchedule: %v", err)
	}
	stale.JSON = []byte(`{"stale":true}`)
	if err := s.UpdateSchedule(ctx, stale); !errors.Is(err, store.ErrScheduleChanged) {
		t.Fatalf("stale update: %v, want ErrScheduleChanged", err)
	}
	got, _, _ := s.GetSchedule(ctx, "u", "a")
	if got.Version != 2 || string(got.JSON) != `{"v":2}` || !got.NextFire.Equal(schedT0.Add(time.Hour)) {
		t.Fatalf("after updates: %+v", got)
	}
	if err := s.UpdateSchedule(ctx, schedRec("u", "none", schedT0)); !errors.Is(err, store.ErrScheduleNotFound) {
		t.Fatalf("update of none: %v", err)
	}
	// A claim changes the version too: an update read before it is stale.
	if _, ok := mustClaimFire(t, s, store.ScheduleClaim{User: "u", ID: "a", Due: got.NextFire, Next: got.NextFire.Add(time.Hour), Now: schedT0, Lease: time.Second, Fire: fireAt(got.NextFire, "r")}); !ok {
		t.Fatal("claim refused")
	}
	if err := s.UpdateSchedule(ctx, got); !errors.Is(err, store.ErrScheduleChanged) {
		t.Fatalf("update read before a claim: %v, want ErrScheduleChanged", err)
	}
}

func schedulesDueAndPaused(t *testing.T, s store.Store) {
	mustCreateSchedule(t, s, schedRec("u", "late", schedT0.Add(2*time.Second)))
	mustCreateSchedule(t, s, schedRec("u", "early", schedT0.Add(time.Second)))
	mustCreateSchedule(t, s, schedRec("u", "future", schedT0.Add(time.Hour)))
	paused := schedRec("u", "paused", schedT0)
	paused.Paused = true
	mustCreateSchedule(t, s, paused)
	mustCreateSchedule(t, s, schedRec("u", "never", time.Time{}))
	due, err := s.DueSchedules(ctx, schedT0.Add(2*time.Second), 10)
	if err != nil || len(due) != 2 || due[0].ID != "early" || due[1].ID != "late" {
		t.Fatalf("DueSchedules = %+v, %v", due, err)
	}
	if _, ok := mustClaimFire(t, s, store.ScheduleClaim{User: "u", ID: "paused", Due: schedT0, Now: schedT0, Lease: time.Second, Fire: fireAt(schedT0, "r")}); ok {
		t.Fatal("a paused schedule fired")
	}
	rec, _, _ := s.GetSchedule(ctx, "u", "early")
	rec.Paused = true
	if err := s.UpdateSchedule(ctx, rec); err != nil {
		t.Fatal(err)
	}
	due, _ = s.DueSchedules(ctx, schedT0.Add(2*time.Second), 10)
	if len(due) != 1 || due[0].ID != "late" {
		t.Fatalf("due after a pause = %+v", due)
	}
	rec, _, _ = s.GetSchedule(ctx, "u", "early")
	rec.Paused = false
	if err := s.UpdateSchedule(ctx, rec); err != nil {
		t.Fatal(err)
	}
	due, _ = s.DueSchedules(ctx, schedT0.Add(2*time.Second), 10)
	if len(due) != 2 {
		t.Fatalf("due after a resume = %+v", due)
	}
}

func schedulesConcurrentClaimsOneWins(t *testing.T, s store.Store) {
	mustCreateSchedule(t, s, schedRec("u", "a", schedT0))
	wins := raceWins(t, 8, func(i int) (bool, error) {
		_, ok, err := s.ClaimFire(ctx, store.ScheduleClaim{User: "u", ID: "a", Due: schedT0, Next: schedT0.Add(time.Second),
			Now: schedT0, Lease: time.Second, Fire: fireAt(schedT0, fmt.Sprint("r", i))})
		return ok, err
	})
	if wins != 1 {
		t.Fatalf("%d claims won, want 1", wins)
	}
	rec, _, _ := s.GetSchedule(ctx, "u", "a")
	if rec.Fires != 1 || !rec.NextFire.Equal(schedT0.Add(time.Second)) {
		t.Fatalf("after the claim: %+v", rec)
	}
	fires, _ := s.ListFires(ctx, "u", "a", 0, 10)
	if len(fires) != 1 || fires[0].Seq != 1 || fires[0].Started || !fires[0].At.Equal(schedT0) {
		t.Fatalf("fires = %+v", fires)
	}
	// The next one is claimed against the advanced time; a one-off ends.
	if _, ok := mustClaimFire(t, s, store.ScheduleClaim{User: "u", ID: "a", Due: schedT0.Add(time.Second), Now: schedT0, Lease: time.Second, Fire: fireAt(schedT0, "last")}); !ok {
		t.Fatal("second claim refused")
	}
	if due, _ := s.DueSchedules(ctx, schedT0.Add(time.Hour), 10); len(due) != 0 {
		t.Fatalf("a schedule with no next fire is due: %+v", due)
	}
}

func schedulesSkipAdvancesWithoutAFire(t *testing.T, s store.Store) {
	mustCreateSchedule(t, s, schedRec("u", "a", schedT0))
	if _, ok := mustClaimFire(t, s, store.ScheduleClaim{User: "u", ID: "a", Due: schedT0, Next: schedT0.Add(time.Minute), Now: schedT0}); !ok {
		t.Fatal("skip refused")
	}
	rec, _, _ := s.GetSchedule(ctx, "u", "a")
	if rec.Fires != 0 || !rec.NextFire.Equal(schedT0.Add(time.Minute)) {
		t.Fatalf("after a skip: %+v", rec)
	}
	if fires, _ := s.ListFires(ctx, "u", "a", 0, 10); len(fires) != 0 {
		t.Fatalf("a skip recorded %+v", fires)
	}
}

func schedulesRunNowKeepsTheNextFire(t *testing.T, s store.Store) {
	rec := schedRec("u", "a", schedT0.Add(time.Hour))
	rec.Paused = true
	mustCreateSchedule(t, s, rec)
	f, ok := mustClaimFire(t, s, store.ScheduleClaim{User: "u", ID: "a", Now: schedT0, Lease: time.Second, Fire: &store.FireRecord{At: schedT0, Manual: true, ResponseID: "r"}})
	if !ok || f.Seq != 1 || !f.Manual {
		t.Fatalf("run-now = %+v %v", f, ok)
	}
	got, _, _ := s.GetSchedule(ctx, "u", "a")
	if !got.NextFire.Equal(schedT0.Add(time.Hour)) || !got.Paused || got.Fires != 1 {
		t.Fatalf("after run-now: %+v", got)
	}
}

func schedulesPendingFiresAreTakenOnce(t *testing.T, s store.Store) {
	mustCreateSchedule(t, s, schedRec("u", "a", schedT0))
	mustClaimFire(t, s, store.ScheduleClaim{User: "u", ID: "a", Due: schedT0, Next: schedT0.Add(time.Hour), Now: schedT0, Lease: 10 * time.Second, Fire: fireAt(schedT0, "r1")})
	if p, _ := s.PendingFires(ctx, schedT0.Add(5*time.Second), 10); len(p) != 0 {
		t.Fatalf("a held fire is pending: %+v", p)
	}
	later := schedT0.Add(11 * time.Second)
	p, err := s.PendingFires(ctx, later, 10)
	want := store.FireKey{User: "u", Schedule: "a", Seq: 1}
	if err != nil || len(p) != 1 || p[0] != want {
		t.Fatalf("PendingFires = %+v, %v", p, err)
	}
	taken := raceWins(t, 6, func(int) (bool, error) {
		f, ok, err := s.TakeFire(ctx, want, later, 10*time.Second)
		if ok && (f.ResponseID != "r1" || f.SessionID != "sess_r1" || f.Seq != 1) {
			t.Errorf("taken fire = %+v", f)
		}
		return ok, err
	})
	if taken != 1 {
		t.Fatalf("taken %d times, want 1", taken)
	}
	if found, err := s.FireStarted(ctx, want, "", ""); !found || err != nil {
		t.Fatalf("FireStarted = %v, %v", found, err)
	}
	if p, _ := s.PendingFires(ctx, later.Add(time.Hour), 10); len(p) != 0 {
		t.Fatalf("a started fire is pending: %+v", p)
	}
	if _, ok, _ := s.TakeFire(ctx, want, later.Add(time.Hour), time.Second); ok {
		t.Fatal("a started fire was taken")
	}
}

func schedulesStartedFireNeverChanges(t *testing.T, s store.Store) {
	mustCreateSchedule(t, s, schedRec("u", "a", schedT0))
	mustClaimFire(t, s, store.ScheduleClaim{User: "u", ID: "a", Due: schedT0, Next: schedT0.Add(time.Hour), Now: schedT0, Lease: time.Second, Fire: fireAt(schedT0, "r1")})
	key := store.FireKey{User: "u", Schedule: "a", Seq: 1}
	if _, err := s.FireStarted(ctx, key, "", "session busy"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FireStarted(ctx, key, "other", ""); err != nil {
		t.Fatal(err)
	}
	fires, _ := s.ListFires(ctx, "u", "a", 0, 10)
	if len(fires) != 1 || !fires[0].Started || fires[0].Failure != "session busy" || fires[0].ResponseID != "r1" {
		t.Fatalf("fires = %+v", fires)
	}
	if found, _ := s.FireStarted(ctx, store.FireKey{User: "u", Schedule: "a", Seq: 9}, "", ""); found {
		t.Fatal("FireStarted found a fire never recorded")
	}
}

func schedulesFiresPageNewestFirst(t *testing.T, s store.Store) {
	mustCreateSchedule(t, s, schedRec("u", "a", schedT0))
	at := schedT0
	for i := range 5 {
		next := at.Add(time.Second)
		if _, ok := mustClaimFire(t, s, store.ScheduleClaim{User: "u", ID: "a", Due: at, Next: next, Now: at, Lease: time.Second, Fire: fireAt(at, fmt.Sprint("r", i+1))}); !ok {
			t.Fatalf("claim %d refused", i)
		}
		at = next
	}
	page, _ := s.ListFires(ctx, "u", "a", 0, 2)
	if len(page) != 2 || page[0].Seq != 5 || page[1].Seq != 4 || page[0].ResponseID != "r5" {
		t.Fatalf("first page = %+v", page)
	}
	page, _ = s.ListFires(ctx, "u", "a", 4, 10)
	if len(page) != 3 || page[0].Seq != 3 || page[2].Seq != 1 || page[2].ResponseID != "r1" {
		t.Fatalf("second page = %+v", page)
	}
	if page, _ := s.ListFires(ctx, "u", "a", 1, 10); len(page) != 0 {
		t.Fatalf("past the oldest = %+v", page)
	}
}

func schedulesDeleteDropsFiresAndIndexes(t *testing.T, s store.Store) {
	mustCreateSchedule(t, s, schedRec("u", "a", schedT0))
	mustClaimFire(t, s, store.ScheduleClaim{User: "u", ID: "a", Due: schedT0, Next: schedT0.Add(time.Second), Now: schedT0, Lease: time.Second, Fire: fireAt(schedT0, "r1")})
	if _, err := s.DeleteSchedule(ctx, "u", "a"); err != nil {
		t.Fatal(err)
	}
	if due, _ := s.DueSchedules(ctx, schedT0.Add(time.Hour), 10); len(due) != 0 {
		t.Fatalf("a deleted schedule is due: %+v", due)
	}
	if p, _ := s.PendingFires(ctx, schedT0.Add(time.Hour), 10); len(p) != 0 {
		t.Fatalf("a deleted schedule's fire is pending: %+v", p)
	}
	mustCreateSchedule(t, s, schedRec("u", "a", schedT0))
	if fires, _ := s.ListFires(ctx, "u", "a", 0, 10); len(fires) != 0 {
		t.Fatalf("a new schedule has old fires: %+v", fires)
	}
}
