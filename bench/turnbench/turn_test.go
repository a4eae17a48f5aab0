package turnbench_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// twentyDeltas is an agent that answers every turn with 20 text deltas, as
// a model streaming 20 tokens would (the in-process twin of
// bench/agents/stream20).
type twentyDeltas struct{}

func (twentyDeltas) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	for i := range 20 {
		if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: fmt.Sprintf("w%d ", i)}); err != nil {
			return err
		}
	}
	return nil
}

// kind is one kind of turn: its request body, the agent (nil: the echo
// agent of examples/hello) and what its answer must contain.
type kind struct {
	name  string
	body  string
	agent runtime.Agent
	want  string
}

var kinds = []kind{
	{name: "json", body: `{"input":"hello"}`, want: `"status":"completed"`},
	{name: "sse", body: `{"input":"hello","stream":true}`, want: "event: response.completed"},
	{name: "sse20", body: `{"input":"hello","stream":true}`, agent: twentyDeltas{}, want: "event: response.completed"},
}

// newServer builds the whole server on a store (URL "" is the in-process
// store) with the given agent (nil: the echo agent of examples/hello), and
// returns its handler. The shared test helper also serves it over
// httptest; the benchmark does not use that.
func newServer(tb testing.TB, storeURL string, agent runtime.Agent) http.Handler {
	tb.Helper()
	return servertest.Start(tb, storeURL, servertest.Setup{Agent: agent}).Srv.Handler
}

// turn serves one POST /responses and checks its answer.
func turn(tb testing.TB, h http.Handler, k kind) {
	req := httptest.NewRequest(http.MethodPost, "/responses", strings.NewReader(k.body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(k.want)) {
		tb.Fatalf("%s turn: status %d, want 200 with %q: %s", k.name, rec.Code, k.want, rec.Body.Bytes())
	}
}

// TestTurns checks that every kind of turn the benchmark measures
// completes, on every store.
func TestTurns(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		for _, k := range kinds {
			t.Run(k.name+"/"+c.Name, func(t *testing.T) {
				h := newServer(t, c.URL, k.agent)
				turn(t, h, k)
				if k.name == "sse20" {
					req := httptest.NewRequest(http.MethodPost, "/responses", strings.NewReader(k.body))
					req.Header.Set("Content-Type", "application/json")
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if n := strings.Count(rec.Body.String(), "event: response.text.delta"); n != 20 {
						t.Fatalf("sse20 turn has %d text deltas, want 20", n)
					}
				}
			})
		}
	}
}

// BenchmarkTurn is one turn of each kind, one after another, on every
// store; allocs/op and B/op are per turn.
func BenchmarkTurn(b *testing.B) {
	for _, k := range kinds {
		for _, c := range testutil.Stores(b) {
			b.Run(k.name+"/"+c.Name, func(b *testing.B) {
				h := newServer(b, c.URL, k.agent)
				turn(b, h, k) // warm up: the store's first write
				b.ReportAllocs()
				for b.Loop() {
					turn(b, h, k)
				}
			})
		}
	}
}
