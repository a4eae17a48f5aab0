package storetest

import (
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// waitApprovalAnswer: an approval answered with more than a yes or no
// (runtime/approval_answer.go: an edit, a result, a denial's message)
// keeps the answer as its output, for the holder and for a replica that
// runs the turn again; a bare answer keeps none.
func waitApprovalAnswer(t *testing.T, s store.Store) {
	suspend(t, s, "u", "s", "resp_1", approval("apr_1"))
	answer := []byte(`{"decision":"edit","arguments":{"to":"bob"}}`)
	got, current, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitApproved, answer, time.Now())
	if err != nil || current != store.WaitApproved || string(got.Output) != string(answer) {
		t.Fatalf("answer: %+v %q %v", got, current, err)
	}
	read, found, _ := s.ReadWait(ctx, "u", "s", "apr_1")
	if !found || read.Status != store.WaitApproved || string(read.Output) != string(answer) {
		t.Fatalf("the holder reads %+v %v", read, found)
	}
	if byID, found, _ := s.GetWait(ctx, "u", "apr_1"); !found || string(byID.Output) != string(answer) {
		t.Fatalf("found by ID: %+v %v", byID, found)
	}
	// A second answer is refused and leaves the first one.
	if _, _, err := s.ResolveWait(ctx, "u", "apr_1", store.WaitApproval, store.WaitDenied, []byte(`{"decision":"deny"}`), time.Now()); err == nil {
		t.Fatal("a second answer was taken")
	}
	if read, _, _ := s.ReadWait(ctx, "u", "s", "apr_1"); read.Status != store.WaitApproved || string(read.Output) != string(answer) {
		t.Fatalf("after a second answer: %+v", read)
	}

	suspend(t, s, "u", "s2", "resp_2", approval("apr_2"))
	if _, _, err := s.ResolveWait(ctx, "u", "apr_2", store.WaitApproval, store.WaitDenied, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if read, _, _ := s.ReadWait(ctx, "u", "s2", "apr_2"); read.Status != store.WaitDenied || len(read.Output) != 0 {
		t.Fatalf("a bare denial: %+v", read)
	}
}
