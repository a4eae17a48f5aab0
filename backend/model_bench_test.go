package backend_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// The model backend's own cost, beside the same model call made directly
// with the chat client in the same run: the difference is what harnest
// adds per model turn (the runtime, the store, the transport).

const benchAnswer = "Hello there, how can I help you today?"

func benchFake(b *testing.B, chunkDelay time.Duration) *fakemodel.Server {
	fake := fakemodel.Start(b)
	fake.SetDefault(func(fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: benchAnswer, ChunkDelay: chunkDelay, Usage: &fakemodel.Usage{PromptTokens: 20, CompletionTokens: 9}}
	})
	return fake
}

func benchServer(b *testing.B, fake *fakemodel.Server) *servertest.Server {
	return servertest.Start(b, "", servertest.Setup{Folder: "testdata/model", Config: func(c *config.Config) {
		c.Spec.Backend.Model.BaseURL = fake.URL
		c.Spec.Tools, c.Spec.ClientTools = nil, nil // tools cost the model, not harnest
	}})
}

// BenchmarkModelCallDirect is the baseline: the chat client alone.
func BenchmarkModelCallDirect(b *testing.B) {
	fake := benchFake(b, 0)
	client, err := chat.New(chat.Options{BaseURL: fake.URL, Model: "test-model", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	req := chat.Request{Messages: []chat.Message{{Role: "system", Content: chat.Text("You are a test agent.")}, {Role: "user", Content: chat.Text("hi")}}}
	handlers := chat.Handlers{Text: func(string) error { return nil }}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := client.Complete(context.Background(), req, handlers); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkModelTurnJSON is a whole POST /responses turn of the model
// backend over HTTP (new session each time), against the same endpoint.
func BenchmarkModelTurnJSON(b *testing.B) {
	ts := benchServer(b, benchFake(b, 0))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Post(ts.URL+"/responses", "application/json", strings.NewReader(`{"input":"hi"}`))
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), benchAnswer) {
			b.Fatalf("status %d: %s", resp.StatusCode, body)
		}
	}
}

// The time to first text delta, with an endpoint that waits 5 ms between
// chunks: measured at the chat client (the endpoint's first byte, parsed)
// and at an SSE client of POST /responses; the difference is what harnest
// adds before the first delta reaches a caller.

const ttftChunkDelay = 5 * time.Millisecond

func BenchmarkModelFirstDeltaDirect(b *testing.B) {
	fake := benchFake(b, ttftChunkDelay)
	client, err := chat.New(chat.Options{BaseURL: fake.URL, Model: "test-model", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	req := chat.Request{Messages: []chat.Message{{Role: "user", Content: chat.Text("hi")}}}
	var total time.Duration
	for b.Loop() {
		start, first := time.Now(), time.Duration(0)
		handlers := chat.Handlers{Text: func(string) error {
			if first == 0 {
				first = time.Since(start)
			}
			return nil
		}}
		if _, err := client.Complete(context.Background(), req, handlers); err != nil {
			b.Fatal(err)
		}
		total += first
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-first-delta")
}

func BenchmarkModelFirstDeltaSSE(b *testing.B) {
	ts := benchServer(b, benchFake(b, ttftChunkDelay))
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		resp, err := http.Post(ts.URL+"/responses", "application/json", strings.NewReader(`{"input":"hi","stream":true}`))
		if err != nil {
			b.Fatal(err)
		}
		lines := bufio.NewScanner(resp.Body)
		first := time.Duration(0)
		for lines.Scan() {
			if first == 0 && lines.Text() == "event: response.text.delta" {
				first = time.Since(start)
			}
		}
		resp.Body.Close()
		if first == 0 {
			b.Fatal("no text delta")
		}
		total += first
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-first-delta")
}
