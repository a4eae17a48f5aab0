package metrics_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// heldAgent reports token usage, says something, then holds the turn until
// the test releases it: so that a scrape sees a stream open and a run
// queued behind it.
type heldAgent struct{ release chan struct{} }

func (a heldAgent) Run(ctx context.Context, _ *runtime.Turn, emit runtime.Emit) error {
	if err := emit(runtime.Event{Type: runtime.EventAgentMetadata, Framework: "test",
		Usage: &runtime.Usage{InputTokens: 7, OutputTokens: 5}}); err != nil {
		return err
	}
	if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "held"}); err != nil {
		return err
	}
	select {
	case <-a.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestGaugesAndTokens: while an SSE turn holds the only run slot and a JSON
// turn waits for it, the gauges say so; once both end, the tokens they
// reported are counted by direction.
func TestGaugesAndTokens(t *testing.T) {
	agent := heldAgent{release: make(chan struct{})}
	setup := servertest.Setup{Agent: agent, Tune: func(o *runtime.Options) { o.MaxConcurrent = 1 }}
	ts := servertest.Start(t, "", setup)

	stream, err := http.DefaultClient.Do(ts.Request("POST", "/responses", "application/json", []byte(`{"input":"hold","stream":true}`)))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	lines := bufio.NewScanner(stream.Body)
	for lines.Scan() && !strings.Contains(lines.Text(), "response.text.delta") {
	}
	queued := make(chan servertest.Reply, 1)
	go func() { queued <- ts.Post("/responses", `{"input":"wait"}`) }()
	waitFor(t, ts, "harnest_admission_queued", 1)
	expect(t, scrape(t, ts), map[string]float64{
		"harnest_sse_streams":      1,
		"harnest_responses_active": 2,
		"harnest_admission_queued": 1,
		"harnest_turns_total":      0,
	})

	close(agent.release)
	for lines.Scan() {
	}
	if r := <-queued; r.Status != 200 {
		t.Fatalf("queued turn answered %d: %s", r.Status, r.Body)
	}
	expect(t, settled(t, ts), map[string]float64{
		"harnest_turns_total|transport=sse|status=completed":  1,
		"harnest_turns_total|transport=json|status=completed": 1,
		"harnest_model_tokens_total|direction=input":          14,
		"harnest_model_tokens_total|direction=output":         10,
		"harnest_sse_streams":                                 0,
		"harnest_admission_queued":                            0,
		"harnest_admission_wait_seconds":                      2,
	})
}

// waitFor scrapes until the metric has the value, for a bounded number of
// tries.
func waitFor(t *testing.T, ts *servertest.Server, name string, want float64) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if value(scrape(t, ts), name, nil) == want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s never became %v", name, want)
}

// TestStoreErrors: a turn refused because Redis is gone is counted as a
// store failure of the runtime, and its failed commands as store errors.
func TestStoreErrors(t *testing.T) {
	redis := testutil.StartOwnRedis(t)
	ts := servertest.Start(t, redis.URL, servertest.Setup{})
	servertest.MustStatus(t, ts.Post("/responses", `{"input":"hi"}`), 200)
	expect(t, settled(t, ts), map[string]float64{"harnest_store_errors_total": 0, "harnest_store_failures_total": 0})

	redis.Kill()
	servertest.MustStatus(t, ts.Post("/responses", `{"input":"hi"}`), 503)
	families := scrape(t, ts)
	if got := value(families, "harnest_store_failures_total", nil); got < 1 {
		t.Errorf("harnest_store_failures_total = %v after a 503 store_unavailable", got)
	}
	if got := value(families, "harnest_store_errors_total", map[string]string{"store": "redis"}); got < 1 {
		t.Errorf("harnest_store_errors_total = %v after a 503 store_unavailable", got)
	}
}
