package chat_test

import (
	"context"
	"testing"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
)

// BenchmarkComplete is one model call against an endpoint that answers at
// once: the client's own cost per call (request, stream parsing, result),
// plus a loopback round trip.
func BenchmarkComplete(b *testing.B) {
	fake := fakemodel.Start(b)
	fake.SetDefault(func(fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "Hello there, how can I help you today?", Usage: &fakemodel.Usage{PromptTokens: 20, CompletionTokens: 9}}
	})
	client, err := chat.New(chat.Options{BaseURL: fake.URL, Model: "bench", Logger: discardLogger()})
	if err != nil {
		b.Fatal(err)
	}
	req := userRequest("Hello")
	handlers := chat.Handlers{Text: func(string) error { return nil }}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := client.Complete(context.Background(), req, handlers); err != nil {
			b.Fatal(err)
		}
	}
}
