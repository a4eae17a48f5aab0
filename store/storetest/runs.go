package storetest

import (
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// failedReceipt is what the runtime records for a run whose replica was
// lost.
var failedReceipt = []byte(`{"status":"failed","error":{"code":"replica_lost"}}`)

// runtimeFailed fails a lapsed run as the runtime decides: a receipt that
// is not final becomes failedReceipt.
func runtimeFailed(_ store.Lapsed, receipt []byte) []byte {
	if store.IsFinalReceipt(receipt) {
		return nil
	}
	return failedReceipt
}

// always finds every lapsed run due.
func always(store.Lapsed) bool { return true }

// testRuns is the contract of the run registry: SweepLapsed finds the runs
// whose lease lapsed, asks whether each is due, and records the failure of
// those that are.
func testRuns(t *testing.T, h Harness) {
	t.Run("HeldRunsAreLeftAlone", func(t *testing.T) { runsHeldRunsAreLeftAlone(t, open(t, h)) })
	harnessSubtests(t, h, map[string]func(t *testing.T, h Harness){
		"AsksWhetherDue":                     runsAsksWhetherDue,
		"ReleasedRunsAreForgotten":           runsReleasedRunsAreForgotten,
		"FinalReceiptsAreKept":               runsFinalReceiptsAreKept,
		"FailedIsNotAskedAboutFinalReceipts": runsFailedIsNotAskedAboutFinalReceipts,
		"WebhookComesBackWithTheRun":         runsWebhookComesBackWithTheRun,
		"Limit":                              runsLimit,
	})
}

func runsAsksWhetherDue(t *testing.T, h Harness) {
	s := open(t, h)
	b := beginArgs("u", "s", "resp_1", true, shortLease)
	b.Replica = "replica-7"
	if _, err := s.BeginResponse(ctx, b); err != nil {
		t.Fatal(err)
	}
	h.Elapse(lapse)
	var asked []store.Lapsed
	notDue := func(l store.Lapsed) bool { asked = append(asked, l); return false }
	swept, err := s.SweepLapsed(ctx, time.Now(), 10, notDue, runtimeFailed)
	want := store.Lapsed{User: "u", Session: "s", ResponseID: "resp_1", Replica: "replica-7", Epoch: 1}
	if err != nil || len(swept) != 0 || len(asked) != 1 || asked[0] != want {
		t.Fatalf("swept %v, asked %+v, err %v", swept, asked, err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(inProgress) {
		t.Fatalf("a run that was not due was failed: %s", got)
	}
	swept, err = s.SweepLapsed(ctx, time.Now(), 10, always, runtimeFailed)
	if err != nil || len(swept) != 1 || swept[0] != want {
		t.Fatalf("due run not swept: %v %v", swept, err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(failedReceipt) {
		t.Fatalf("receipt %s", got)
	}
	// Forgotten once failed.
	if swept, _ := s.SweepLapsed(ctx, time.Now(), 10, always, runtimeFailed); len(swept) != 0 {
		t.Fatalf("swept twice: %v", swept)
	}
}

func runsHeldRunsAreLeftAlone(t *testing.T, s store.Store) {
	mustBegin(t, s, "u", "s", "resp_1", true, time.Minute)
	// Past its registered time, but the lease is still held.
	swept, err := s.SweepLapsed(ctx, time.Now().Add(2*time.Minute), 10, always, runtimeFailed)
	if err != nil || len(swept) != 0 {
		t.Fatalf("swept a held run: %v %v", swept, err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(inProgress) {
		t.Fatalf("receipt %s", got)
	}
	// Not yet lapsed by the sweeper's clock: not even asked about.
	asked := 0
	_, _ = s.SweepLapsed(ctx, time.Now(), 10, func(store.Lapsed) bool { asked++; return true }, runtimeFailed)
	if asked != 0 {
		t.Fatalf("asked about %d runs that had not lapsed", asked)
	}
}

func runsReleasedRunsAreForgotten(t *testing.T, h Harness) {
	s := open(t, h)
	mustBegin(t, s, "u", "s", "resp_1", true, shortLease)
	finish(t, s, "u", "s", "resp_1")
	h.Elapse(lapse)
	asked := 0
	swept, err := s.SweepLapsed(ctx, time.Now(), 10, func(store.Lapsed) bool { asked++; return true }, runtimeFailed)
	if err != nil || len(swept) != 0 || asked != 0 {
		t.Fatalf("a released run was swept: %v (asked %d) %v", swept, asked, err)
	}
}

func runsFinalReceiptsAreKept(t *testing.T, h Harness) {
	s := lapsedLease(t, h)
	if err := s.ReplaceReceipt(ctx, "u", "s", "resp_1", 1, completed); err != nil {
		t.Fatal(err)
	}
	swept, err := s.SweepLapsed(ctx, time.Now(), 10, always, runtimeFailed)
	if err != nil || len(swept) != 0 {
		t.Fatalf("swept a run with a final receipt: %v %v", swept, err)
	}
	if got, _, _ := s.Receipt(ctx, "u", "s", "resp_1"); string(got) != string(completed) {
		t.Fatalf("receipt %s", got)
	}
}

func runsFailedIsNotAskedAboutFinalReceipts(t *testing.T, h Harness) {
	s := open(t, h)
	for _, sid := range []string{"final", "gone", "open"} {
		mustBegin(t, s, "u", sid, "resp_"+sid, true, shortLease)
	}
	h.Elapse(lapse)
	if err := s.ReplaceReceipt(ctx, "u", "final", "resp_final", 1, completed); err != nil {
		t.Fatal(err)
	}
	if found, err := s.DeleteSession(ctx, "u", "gone"); !found || err != nil { // its receipt goes with it
		t.Fatalf("delete a lapsed session: %v %v", found, err)
	}
	// A careless failed would overwrite anything it is asked about.
	var asked []string
	careless := func(l store.Lapsed, _ []byte) []byte {
		asked = append(asked, l.ResponseID)
		return failedReceipt
	}
	swept, err := s.SweepLapsed(ctx, time.Now(), 10, always, careless)
	if err != nil || len(swept) != 1 || swept[0].ResponseID != "resp_open" {
		t.Fatalf("swept %v, %v; want resp_open only", swept, err)
	}
	if len(asked) != 1 || asked[0] != "resp_open" {
		t.Fatalf("failed was asked about %v; want resp_open only", asked)
	}
	if got, _, _ := s.Receipt(ctx, "u", "final", "resp_final"); string(got) != string(completed) {
		t.Fatalf("a final receipt was overwritten: %s", got)
	}
	if _, found, _ := s.Receipt(ctx, "u", "gone", "resp_gone"); found {
		t.Fatal("a sweep wrote a receipt into a deleted session")
	}
	// All three are forgotten.
	dueAsked := 0
	if swept, _ := s.SweepLapsed(ctx, time.Now(), 10, func(store.Lapsed) bool { dueAsked++; return true }, careless); len(swept) != 0 || dueAsked != 0 {
		t.Fatalf("a second sweep found %d runs (swept %v)", dueAsked, swept)
	}
}

// A run's webhook is kept with it (also through a renewal), so
// that the replica that fails the run can send its final receipt.
func runsWebhookComesBackWithTheRun(t *testing.T, h Harness) {
	s := open(t, h)
	hooked := beginArgs("u", "hooked", "resp_hooked", true, shortLease)
	hooked.Webhook = `{"url":"https://example.com/hook","events":true}`
	if _, err := s.BeginResponse(ctx, hooked); err != nil {
		t.Fatal(err)
	}
	mustBegin(t, s, "u", "plain", "resp_plain", true, shortLease)
	if ok, err := s.RenewLease(ctx, "u", "hooked", "resp_hooked", "r1", 1, shortLease); !ok || err != nil {
		t.Fatalf("renew: %v %v", ok, err)
	}
	h.Elapse(lapse)
	var asked []store.Lapsed
	swept, err := s.SweepLapsed(ctx, time.Now(), 10, always, func(l store.Lapsed, receipt []byte) []byte {
		asked = append(asked, l)
		return runtimeFailed(l, receipt)
	})
	if err != nil || len(swept) != 2 || len(asked) != 2 {
		t.Fatalf("swept %v, asked %v, err %v", swept, asked, err)
	}
	for _, got := range [][]store.Lapsed{swept, asked} {
		for _, l := range got {
			want := ""
			if l.ResponseID == "resp_hooked" {
				want = hooked.Webhook
			}
			if l.Webhook != want {
				t.Errorf("%s came back with webhook %q, want %q", l.ResponseID, l.Webhook, want)
			}
		}
	}
}

func runsLimit(t *testing.T, h Harness) {
	s := open(t, h)
	for _, sid := range []string{"s1", "s2", "s3"} {
		mustBegin(t, s, "u", sid, "resp_"+sid, true, shortLease)
	}
	h.Elapse(lapse)
	swept, err := s.SweepLapsed(ctx, time.Now(), 2, always, runtimeFailed)
	if err != nil || len(swept) != 2 {
		t.Fatalf("first sweep of 2: %v %v", swept, err)
	}
	swept, err = s.SweepLapsed(ctx, time.Now(), 2, always, runtimeFailed)
	if err != nil || len(swept) != 1 {
		t.Fatalf("second sweep: %v %v", swept, err)
	}
}
