package chat_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
)

func TestRateLimitedWithRetryAfterThenSuccess(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(
		fakemodel.Reply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "2"}},
		fakemodel.Reply{Text: "finally"},
	)
	res, err := h.ask(t, chat.Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "finally" {
		t.Fatalf("text = %q", res.Text)
	}
	if waits := h.recordedWaits(); len(waits) != 1 || waits[0] != 2*time.Second {
		t.Fatalf("waits = %v, want [2s] (the Retry-After)", waits)
	}
	if n := len(h.fake.Requests()); n != 2 {
		t.Fatalf("the endpoint got %d requests, want 2", n)
	}
}

func TestRetryAfterAsHTTPDate(t *testing.T) {
	h := newHarness(t, nil)
	at := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
	h.fake.Script(fakemodel.Reply{Status: http.StatusServiceUnavailable, Header: map[string]string{"Retry-After": at}})
	if _, err := h.ask(t, chat.Handlers{}); err != nil {
		t.Fatal(err)
	}
	// An HTTP date has whole seconds: the wait is 4 to 5 s from now.
	if waits := h.recordedWaits(); len(waits) != 1 || waits[0] < 3*time.Second || waits[0] > 5*time.Second {
		t.Fatalf("waits = %v, want one of about 5 s", waits)
	}
}

func TestRateLimitedPastTheTimeout(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "3600"}})
	_, err := h.ask(t, chat.Handlers{})
	e := wantCode(t, err, chat.CodeRateLimited)
	if e.RetryAfter != time.Hour {
		t.Fatalf("RetryAfter = %v, want 1h", e.RetryAfter)
	}
	if waits := h.recordedWaits(); len(waits) != 0 || len(h.fake.Requests()) != 1 {
		t.Fatalf("waits = %v, requests = %d: want no wait and one request", waits, len(h.fake.Requests()))
	}
}

func TestRateLimitedUntilTheBudgetEnds(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.SetDefault(func(fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Status: http.StatusTooManyRequests} })
	_, err := h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeRateLimited)
}

func TestServerErrorsUntilTheBudgetEnds(t *testing.T) {
	h := newHarness(t, nil) // 10 s: waits of 0.5, 1, 2 and 4 s fit (with jitter), 8 s more does not
	for range 10 {
		h.fake.Script(fakemodel.Reply{Status: http.StatusInternalServerError, Body: `{"error":{"message":"boom inside"}}`})
	}
	_, err := h.ask(t, chat.Handlers{})
	e := wantCode(t, err, chat.CodeUnavailable)
	if strings.Contains(e.Detail, "boom") {
		t.Fatalf("detail %q holds the provider's text", e.Detail)
	}
	if n := len(h.fake.Requests()); n != 5 {
		t.Fatalf("the endpoint got %d requests, want 5", n)
	}
	waits := h.recordedWaits()
	for i, want := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second} {
		if i >= len(waits) || waits[i] < want || waits[i] > want+want/10 {
			t.Fatalf("waits = %v, want 0.5 s, 1 s, 2 s, 4 s (each up to a tenth more)", waits)
		}
	}
	if !strings.Contains(h.log.String(), "boom inside") {
		t.Fatalf("the log does not hold the provider's text:\n%s", h.log)
	}
}

func TestUnauthorizedNeverShowsTheKey(t *testing.T) {
	const key = "sk-test-Very-Secret-Key-0123456789"
	const headerValue = "hv-secret-org-4242"
	h := newHarness(t, func(o *chat.Options) {
		o.APIKey = key
		o.Headers = map[string]string{"OpenAI-Organization": headerValue}
	})
	// A provider that echoes the key and the header back in its error.
	h.fake.Script(fakemodel.Reply{Status: http.StatusUnauthorized,
		Body: `{"error":{"message":"Incorrect API key provided: ` + key + ` for org ` + headerValue + `"}}`})
	_, err := h.ask(t, chat.Handlers{})
	e := wantCode(t, err, chat.CodeAuth)
	if !strings.Contains(e.Detail, "spec.backend.model.apiKey") {
		t.Fatalf("detail %q does not say what to check", e.Detail)
	}
	log := h.log.String()
	for _, secret := range []string{key, headerValue} {
		if strings.Contains(e.Detail, secret) || strings.Contains(log, secret) {
			t.Fatalf("%q reached the error (%q) or the log:\n%s", secret, e.Detail, log)
		}
	}
	if !strings.Contains(log, "Incorrect API key provided: [redacted]") {
		t.Fatalf("the log does not hold the redacted provider text:\n%s", log)
	}
	if got := h.fake.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("Authorization = %q", got)
	}
	if len(h.fake.Requests()) != 1 {
		t.Fatal("a 401 was retried")
	}
}

func TestOtherStatuses(t *testing.T) {
	cases := []struct {
		status int
		code   string
	}{
		{http.StatusForbidden, chat.CodeAuth},
		{http.StatusNotFound, chat.CodeUnavailable},
		{http.StatusBadRequest, chat.CodeBadResponse},
		{http.StatusUnprocessableEntity, chat.CodeBadResponse},
	}
	for _, c := range cases {
		t.Run(http.StatusText(c.status), func(t *testing.T) {
			h := newHarness(t, nil)
			h.fake.Script(fakemodel.Reply{Status: c.status})
			_, err := h.ask(t, chat.Handlers{})
			wantCode(t, err, c.code)
			if n := len(h.fake.Requests()); n != 1 {
				t.Fatalf("HTTP %d was retried (%d requests)", c.status, n)
			}
		})
	}
}

func TestSlowStreamPastTheTimeout(t *testing.T) {
	h := newHarness(t, func(o *chat.Options) { o.Timeout = 300 * time.Millisecond })
	h.fake.Script(fakemodel.Reply{Text: "slow words here", ChunkDelay: time.Minute})
	_, err := h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeTimeout)
}

func TestSlowFirstBytePastTheTimeout(t *testing.T) {
	h := newHarness(t, func(o *chat.Options) { o.Timeout = 300 * time.Millisecond })
	h.fake.Script(fakemodel.Reply{Text: "late", FirstByteDelay: time.Minute})
	_, err := h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeTimeout)
}

func TestCancelDuringTheStream(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Text: "one two three", ChunkDelay: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := h.client.Complete(ctx, userRequest("Hello"), chat.Handlers{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestCancelBeforeTheAnswer(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Text: "late", FirstByteDelay: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := h.client.Complete(ctx, userRequest("Hello"), chat.Handlers{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestCancelDuringABackoffWait(t *testing.T) {
	h := newHarness(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.fake.Script(fakemodel.Reply{Status: http.StatusBadGateway})
	client, err := chat.New(chat.Options{BaseURL: h.fake.URL, Model: "m", Logger: discardLogger(), Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Complete(ctx, userRequest("Hello"), chat.Handlers{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var waits int
	client, err := chat.New(chat.Options{BaseURL: "http://" + addr + "/v1", Model: "m", Timeout: 10 * time.Second,
		Logger: discardLogger(),
		Sleep:  func(ctx context.Context, d time.Duration) error { waits++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Complete(context.Background(), userRequest("Hello"), chat.Handlers{})
	e := wantCode(t, err, chat.CodeUnavailable)
	if !strings.Contains(e.Detail, addr) || waits != 2 {
		t.Fatalf("detail %q (want it to name %s), %d waits (want 2: three attempts in all)", e.Detail, addr, waits)
	}
}

func TestStreamBreaksOffMidway(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Text: "one two three", CutAfter: 2})
	var deltas []string
	_, err := h.ask(t, chat.Handlers{Text: func(d string) error { deltas = append(deltas, d); return nil }})
	wantCode(t, err, chat.CodeBadResponse)
	if len(deltas) != 1 || len(h.fake.Requests()) != 1 {
		t.Fatalf("deltas %q, %d requests: want one delta and no retry", deltas, len(h.fake.Requests()))
	}
}

func TestConnectionClosedBeforeTheAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	client, err := chat.New(chat.Options{BaseURL: "http://" + ln.Addr().String() + "/v1", Model: "m", Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Complete(context.Background(), userRequest("Hello"), chat.Handlers{})
	wantCode(t, err, chat.CodeUnavailable)
}

func TestTheHTTPClientsOwnTimeout(t *testing.T) {
	h := newHarness(t, func(o *chat.Options) { o.HTTPClient = &http.Client{Timeout: 200 * time.Millisecond} })
	h.fake.Script(fakemodel.Reply{Text: "late", FirstByteDelay: time.Minute})
	_, err := h.ask(t, chat.Handlers{})
	wantCode(t, err, chat.CodeTimeout)
}

func TestCancelDuringARealBackoffTimer(t *testing.T) {
	h := newHarness(t, nil)
	h.fake.Script(fakemodel.Reply{Status: http.StatusServiceUnavailable})
	client, err := chat.New(chat.Options{BaseURL: h.fake.URL, Model: "m", Logger: discardLogger()}) // the default Sleep
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(100*time.Millisecond, cancel) // during the first wait of 0.5 s
	if _, err := client.Complete(ctx, userRequest("Hello"), chat.Handlers{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}
