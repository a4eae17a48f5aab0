package storetest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harnest/harnest/store"
)

// testEvalRuns is the contract of the last eval run per agent: none until
// put, the latest put wins, agents apart, and a summary past the bound is
// refused with nothing written.
func testEvalRuns(t *testing.T, h Harness) {
	ctx := context.Background()
	st := h.Open(t, 0)
	if _, ok, err := st.LastEvalRun(ctx, "hello"); err != nil || ok {
		t.Fatalf("LastEvalRun before any run: %v %v", ok, err)
	}
	first, second := []byte(`{"passed":1}`), []byte(`{"passed":2}`)
	for _, s := range [][]byte{first, second} {
		if err := st.PutEvalRun(ctx, "hello", s); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutEvalRun(ctx, "hello:x", first); err != nil {
		t.Fatal(err)
	}
	got, ok, err := st.LastEvalRun(ctx, "hello")
	if err != nil || !ok || !bytes.Equal(got, second) {
		t.Fatalf("LastEvalRun = %s %v %v, want the latest", got, ok, err)
	}
	if got, _, _ := st.LastEvalRun(ctx, "hello:x"); !bytes.Equal(got, first) {
		t.Fatalf("another agent's run = %s", got)
	}
	if _, ok, _ := st.LastEvalRun(ctx, "other"); ok {
		t.Fatal("an agent that never ran has a run")
	}
	huge := []byte(`{"x":"` + strings.Repeat("a", store.MaxEvalRunBytes) + `"}`)
	if err := st.PutEvalRun(ctx, "hello", huge); !errors.Is(err, store.ErrEvalRunTooLarge) {
		t.Fatalf("a summary past the bound: %v", err)
	}
	if got, _, _ := st.LastEvalRun(ctx, "hello"); !bytes.Equal(got, second) {
		t.Fatalf("a refused summary changed the last run: %.40s", got)
	}
}
