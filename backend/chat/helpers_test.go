package chat_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/runtime"
)

// harness is a client pointed at a fake endpoint, with its log in a
// buffer and its backoff waits recorded instead of slept.
type harness struct {
	fake   *fakemodel.Server
	client *chat.Client
	log    *syncBuffer

	mu    sync.Mutex
	waits []time.Duration
}

// newHarness starts a fake endpoint and a client of it; edit adjusts the
// options before the client is made.
func newHarness(t *testing.T, edit func(*chat.Options)) *harness {
	t.Helper()
	h := &harness{fake: fakemodel.Start(t), log: &syncBuffer{}}
	opts := chat.Options{
		BaseURL: h.fake.URL,
		Model:   "test-model",
		Timeout: 10 * time.Second,
		Logger:  slog.New(slog.NewTextHandler(h.log, nil)),
		Sleep:   h.sleep,
	}
	if edit != nil {
		edit(&opts)
	}
	client, err := chat.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.client = client
	return h
}

// sleep records the wait and returns at once.
func (h *harness) sleep(ctx context.Context, d time.Duration) error {
	h.mu.Lock()
	h.waits = append(h.waits, d)
	h.mu.Unlock()
	return ctx.Err()
}

func (h *harness) recordedWaits() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Duration(nil), h.waits...)
}

// ask sends one user message.
func (h *harness) ask(t *testing.T, handlers chat.Handlers) (*chat.Result, error) {
	t.Helper()
	return h.client.Complete(context.Background(), userRequest("Hello"), handlers)
}

func userRequest(text string) chat.Request {
	return chat.Request{Messages: []chat.Message{{Role: chat.RoleUser, Content: chat.Text(text)}}}
}

// wantCode fails the test unless err is a model error with code.
func wantCode(t *testing.T, err error, code string) *runtime.Error {
	t.Helper()
	var e *runtime.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want a *runtime.Error with code %s", err, err, code)
	}
	if e.Code != code || !errors.Is(err, runtime.ErrAgentUnavailable) {
		t.Fatalf("error = %q (code %s, kind %v), want code %s of kind ErrAgentUnavailable", e.Detail, e.Code, e.Kind, code)
	}
	return e
}

// syncBuffer is a log sink the test reads while the server writes.
type syncBuffer = testutil.SyncBuffer

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
