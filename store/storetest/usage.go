package storetest

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// The contract of usage counters: per user and for everyone, per UTC day,
// per backend and model.

// usageUser is a user ID with the characters that separate key parts.
const usageUser = "ann:{g}%"

func testUsage(t *testing.T, h Harness) {
	subtests(t, h, map[string]func(t *testing.T, s store.Store){
		"Counters":         testUsageCounters,
		"WithTheFinalStep": testUsageWithTheFinalStep,
	})
}

func testUsageCounters(t *testing.T, st store.Store) {
	late := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)
	next := late.Add(2 * time.Minute) // the next UTC day
	model := func(turns, in, out, cost int64) store.UsageLine {
		return store.UsageLine{Backend: "model", Model: "gpt:x{1}%", Turns: turns, InputTokens: in, OutputTokens: out, CostMicros: cost}
	}
	echo := store.UsageLine{Backend: "echo", Turns: 1}
	add := func(user string, now time.Time, lines ...store.UsageLine) {
		t.Helper()
		if err := st.AddUsage(ctx, user, now, lines); err != nil {
			t.Fatalf("add usage of %q: %v", user, err)
		}
	}
	add(usageUser, late, model(1, 100, 20, 7))
	add(usageUser, late, model(1, 50, 5, 0), echo)
	add("ann", late, model(1, 1, 1, 1)) // another user, whose ID is a prefix
	add(usageUser, next, echo)
	add(usageUser, next) // nothing to add

	// Negative counts are refused, and nothing of the call is added.
	if err := st.AddUsage(ctx, usageUser, late, []store.UsageLine{echo, {Backend: "echo", InputTokens: -5}}); !errors.Is(err, store.ErrUsageNegative) {
		t.Fatalf("negative usage: %v; want ErrUsageNegative", err)
	}

	day, err := st.UsageOfDay(ctx, usageUser, late)
	if want := (store.UsageLine{Turns: 3, InputTokens: 150, OutputTokens: 25, CostMicros: 7}); err != nil || day != want {
		t.Fatalf("the user's day: %+v, %v; want %+v", day, err, want)
	}
	if day, err := st.UsageOfDay(ctx, "nobody", late); err != nil || day != (store.UsageLine{}) {
		t.Fatalf("a user with no usage: %+v, %v", day, err)
	}

	days := []string{"2026-02-28", "2026-03-01", "2026-03-02"}
	got, err := st.ReadUsage(ctx, store.UsageQuery{User: usageUser, Days: days})
	want := []store.UsageDay{
		{Date: "2026-03-01", Lines: []store.UsageLine{echo, model(2, 150, 25, 7)}},
		{Date: "2026-03-02", Lines: []store.UsageLine{echo}},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("the user's days: %+v, %v; want %+v", got, err, want)
	}
	got, err = st.ReadUsage(ctx, store.UsageQuery{Everyone: true, Days: days})
	want[0].Lines[1] = model(3, 151, 26, 8)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("everyone's days: %+v, %v; want %+v", got, err, want)
	}
	got, err = st.ReadUsage(ctx, store.UsageQuery{User: "ann", Days: days[1:2]})
	if want := []store.UsageDay{{Date: "2026-03-01", Lines: []store.UsageLine{model(1, 1, 1, 1)}}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("the other user's day: %+v, %v; want %+v", got, err, want)
	}
	if got, err := st.ReadUsage(ctx, store.UsageQuery{User: "nobody", Days: days}); err != nil || len(got) != 0 {
		t.Fatalf("a user with no usage: %+v, %v", got, err)
	}
}

// testUsageWithTheFinalStep: a final step's usage is counted when the
// step is written, once, and not when it is refused; a new session's
// one-step turn sent again counts once.
func testUsageWithTheFinalStep(t *testing.T, st store.Store) {
	const day = "2026-04-05"
	noon := time.Date(2026, 4, 5, 12, 0, 0, 0, time.UTC)
	line := store.UsageLine{Backend: "model", Model: "m", Turns: 1, InputTokens: 10, OutputTokens: 2, CostMicros: 5}
	mustDay := func(want store.UsageLine, what string) {
		t.Helper()
		got, err := st.UsageOfDay(ctx, usageUser, noon)
		if err != nil || got != want {
			t.Fatalf("%s: the day is %+v, %v; want %+v", what, got, err, want)
		}
	}
	// A step that begins nothing: its usage comes with the final step.
	mustBegin(t, st, usageUser, "s", "resp_1", true, time.Minute)
	c := store.Commit{User: usageUser, Session: "s", ResponseID: "resp_1", Receipt: completed, Release: true,
		Replica: "r1", Now: "t1", Usage: []store.UsageLine{line}, UsageDay: day}
	if err := st.CommitResponse(ctx, c); err != nil {
		t.Fatal(err)
	}
	mustDay(store.UsageLine{Turns: 1, InputTokens: 10, OutputTokens: 2, CostMicros: 5}, "after the final step")
	// Sent again: refused as final, counted once.
	if err := st.CommitResponse(ctx, c); !errors.Is(err, store.ErrReceiptFinal) {
		t.Fatalf("the final step again: %v", err)
	}
	mustDay(store.UsageLine{Turns: 1, InputTokens: 10, OutputTokens: 2, CostMicros: 5}, "after the step was refused")
	// A negative count refuses the step: nothing is written.
	mustBegin(t, st, usageUser, "s", "resp_2", false, time.Minute)
	bad := c
	bad.ResponseID, bad.Usage = "resp_2", []store.UsageLine{{Backend: "x", Turns: -1}}
	if err := st.CommitResponse(ctx, bad); !errors.Is(err, store.ErrUsageNegative) {
		t.Fatalf("negative usage: %v", err)
	}
	if got, _, _ := st.Receipt(ctx, usageUser, "s", "resp_2"); string(got) != string(inProgress) {
		t.Fatalf("a refused step wrote the receipt %s", got)
	}
	// A new session's one-step turn, sent twice (its first answer lost).
	one := creatingCommit(usageUser, "s2", "resp_3")
	one.Usage, one.UsageDay = []store.UsageLine{line}, day
	for range 2 {
		if err := st.CommitResponse(ctx, one); err != nil && !errors.Is(err, store.ErrReceiptFinal) {
			t.Fatal(err)
		}
	}
	mustDay(store.UsageLine{Turns: 2, InputTokens: 20, OutputTokens: 4, CostMicros: 10}, "after a new session's turn sent twice")
	got, err := st.ReadUsage(ctx, store.UsageQuery{Everyone: true, Days: []string{day}})
	if want := []store.UsageDay{{Date: day, Lines: []store.UsageLine{{Backend: "model", Model: "m", Turns: 2, InputTokens: 20, OutputTokens: 4, CostMicros: 10}}}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("everyone's day: %+v, %v", got, err)
	}
}
