package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/bench/internal/loopback"
)

// fakeDoors answers every door with a short stream: a created event, a
// text delta and the final event.
func fakeDoors(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		delta := "response.text.delta"
		if r.URL.Path == "/v1/responses" {
			delta = "response.output_text.delta"
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/api/chat" { // both useChat doors
			for _, typ := range []string{"start", "text-start", "text-delta", "text-end", "finish"} {
				fmt.Fprintf(w, "data: {\"type\":%q}\n\n", typ)
			}
			fmt.Fprint(w, "data: [DONE]\n\n")
			return
		}
		for _, name := range []string{"response.created", delta, "response.completed"} {
			fmt.Fprintf(w, "event: %s\ndata: {}\n\n", name)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestTurnMeasuresTheFirstToken(t *testing.T) {
	ts := fakeDoors(t)
	for _, d := range doors(options{Model: "echo", Input: "hi"}) {
		ttft, err := d.turn(context.Background(), loopback.Client(1), ts.URL, "")
		if err != nil || ttft <= 0 {
			t.Fatalf("%s: %v %v", d.Name, ttft, err)
		}
	}
}

func TestTurnWithoutFinalEventFails(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "event: response.text.delta\ndata: {}\n\nevent: error\ndata: {}\n\n")
	}))
	defer ts.Close()
	d := doors(options{Model: "echo", Input: "hi"})[0]
	if _, err := d.turn(context.Background(), loopback.Client(1), ts.URL, ""); err == nil || !strings.Contains(err.Error(), "without response.completed") {
		t.Fatalf("err = %v", err)
	}
}

func TestRunReportsBothDoors(t *testing.T) {
	ts := fakeDoors(t)
	o := options{Base: ts.URL, Model: "echo", Input: "hi", Concurrency: 2, Rounds: 1, Duration: 50 * time.Millisecond, Warmup: 10 * time.Millisecond}
	results, err := run(o)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	report(&out, o, results)
	for _, want := range []string{"POST /responses", "POST /v1/responses", "POST /api/chat", "ratio"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("report lacks %q:\n%s", want, out.String())
		}
	}
	for _, r := range results {
		if len(r.TTFT) == 0 || r.Failures != 0 {
			t.Fatalf("%s: %d turns, %d failures (%s)", r.Door.Name, len(r.TTFT), r.Failures, r.FirstError)
		}
	}
}
