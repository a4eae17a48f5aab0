package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/store/stores"
)

var testUser = Principal{UserID: "u1"}

// newTestService runs a Service with agent on a fresh embedded store. The
// service is shut down and the store closed when the test ends.
func newTestService(t *testing.T, agent Agent, configure func(*Options)) *Service {
	t.Helper()
	st, err := stores.Open(context.Background(), stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	o := Options{Store: st, Agent: agent}
	if configure != nil {
		configure(&o)
	}
	s := New(o)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

// receipt reads a response's receipt as a generic envelope.
func receipt(t *testing.T, s *Service, r *Response) Envelope {
	t.Helper()
	b, err := s.GetResponse(context.Background(), testUser, r.SessionID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	var env Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("receipt %s: %v", b, err)
	}
	return env
}

func waitDone(t *testing.T, r *Response) Outcome {
	t.Helper()
	select {
	case <-r.Done():
		return r.Outcome()
	case <-time.After(10 * time.Second):
		t.Fatal("response did not finish")
		return Outcome{}
	}
}

func TestServiceStreamsNumberedEvents(t *testing.T) {
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		for _, e := range []Event{
			{Type: EventTextDelta, Delta: "Hel", Agent: "a"},
			{Type: EventToolCall, ID: "c1", Name: "t", Arguments: json.RawMessage(`{}`)},
			{Type: EventToolResult, CallID: "c1", Name: "t", Output: json.RawMessage(`1`)},
			{Type: EventThinkingDelta, Delta: "dropped by default policy"},
			{Type: EventTextDelta, Delta: "lo", Agent: "a"},
			{Type: EventAgentMetadata, Usage: &Usage{InputTokens: 2, OutputTokens: 3}, Raw: json.RawMessage(`{"x":1}`)},
			{Type: EventStateDelta, StateDelta: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}},
		} {
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	})
	s := newTestService(t, agent, nil)
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{
		Input: "hi", Stream: true, Metadata: json.RawMessage(`{"m":1}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []Event
	for e := range r.Events() {
		got = append(got, e)
	}
	wantTypes := []string{EventCreated, EventTextDelta, EventToolCall, EventToolResult, EventTextDelta,
		EventAgentMetadata, EventStateDelta, EventCompleted}
	if len(got) != len(wantTypes) {
		t.Fatalf("got %d events: %+v", len(got), got)
	}
	for i, e := range got {
		if e.Sequence != i || e.Type != wantTypes[i] || e.ResponseID != r.ID || e.SessionID != r.SessionID {
			t.Errorf("event %d: type %s seq %d ids %s/%s", i, e.Type, e.Sequence, e.ResponseID, e.SessionID)
		}
	}
	if string(got[0].Metadata) != `{"m":1}` {
		t.Errorf("created metadata = %s", got[0].Metadata)
	}
	if got[5].Raw != nil {
		t.Errorf("normalized metadata kept raw %s", got[5].Raw)
	}
	out := r.Outcome()
	if out.Err != nil {
		t.Fatalf("outcome error %+v", out.Err)
	}
	env := out.Envelope
	if env.Status != StatusCompleted || env.OutputText != "Hello" || len(env.Output) != 5 ||
		env.Usage == nil || *env.Usage != (Usage{InputTokens: 2, OutputTokens: 3, TotalTokens: 5}) {
		t.Errorf("envelope = %+v", env)
	}
	if got[len(got)-1].Envelope == nil || got[len(got)-1].Envelope.OutputText != "Hello" {
		t.Errorf("completed event carries %+v", got[len(got)-1].Envelope)
	}
	b, err := s.GetResponse(context.Background(), testUser, r.SessionID, r.ID)
	if err != nil || string(b) != string(out.Body) {
		t.Errorf("receipt %s (%v) differs from body %s", b, err, out.Body)
	}
	sess, err := s.GetSession(context.Background(), testUser, r.SessionID)
	if err != nil || string(sess.State["k"]) != `"v"` {
		t.Errorf("session state %+v, %v", sess.State, err)
	}
	// Another user sees neither the session's receipt nor the session.
	if _, err := s.GetResponse(context.Background(), Principal{UserID: "u2"}, r.SessionID, r.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("other user's GetResponse: %v", err)
	}
}

func TestServiceNonStreaming(t *testing.T) {
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		return emit(Event{Type: EventTextDelta, Delta: "echo: " + turn.Input})
	})
	s := newTestService(t, agent, nil)
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Events() != nil {
		t.Error("non-streaming response has an event channel")
	}
	out := waitDone(t, r)
	if out.Err != nil || out.Envelope.OutputText != "echo: x" || string(out.Envelope.Metadata) != "{}" {
		t.Fatalf("outcome %+v", out)
	}
}

func TestServiceEmitAfterCancel(t *testing.T) {
	started := make(chan struct{})
	emitErr := make(chan error, 1)
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		close(started)
		<-ctx.Done()
		emitErr <- emit(Event{Type: EventTextDelta, Delta: "too late"})
		return ctx.Err()
	})
	s := newTestService(t, agent, nil)
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "x"})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	r.Cancel()
	select {
	case err := <-emitErr:
		if err == nil {
			t.Error("emit after cancellation succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("agent did not return")
	}
	out := waitDone(t, r)
	if out.Err == nil || !errors.Is(out.Err, ErrCancelled) || out.Err.Code != CodeCancelled {
		t.Fatalf("outcome error %+v", out.Err)
	}
	env := receipt(t, s, r)
	if env.Status != StatusCancelled || env.Error == nil || env.Error.Code != CodeCancelled || env.OutputText != "" {
		t.Errorf("receipt %+v", env)
	}
}

func TestServiceRefusesForbiddenEventTypes(t *testing.T) {
	forbidden := []string{EventCreated, EventCompleted, EventError, EventInProgress, EventApproval, EventClientTool, EventRetracted}
	errs := make([]error, len(forbidden))
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		for i, typ := range forbidden {
			errs[i] = emit(Event{Type: typ, Envelope: &Envelope{ID: "forged"}})
		}
		return emit(Event{Type: EventTextDelta, Delta: "ok"})
	})
	s := newTestService(t, agent, nil)
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "x", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for e := range r.Events() {
		types = append(types, e.Type)
	}
	out := r.Outcome()
	for i, err := range errs {
		if err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("emit(%s) = %v, want an ErrInvalid error", forbidden[i], err)
		}
	}
	if want := []string{EventCreated, EventTextDelta, EventCompleted}; len(types) != 3 ||
		types[0] != want[0] || types[1] != want[1] || types[2] != want[2] {
		t.Errorf("stream types %v, want %v", types, want)
	}
	if out.Err != nil || out.Envelope.ID != r.ID {
		t.Errorf("outcome %+v", out)
	}
}

func TestServiceShutdownCancelsBlockedRun(t *testing.T) {
	started := make(chan struct{})
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	})
	st, err := stores.Open(context.Background(), stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	s := New(Options{Store: st, Agent: agent})
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "x", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	var last Event
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		for e := range r.Events() {
			last = e
		}
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want deadline exceeded", err)
	}
	// The stream ends with the receipt it leaves: response.completed,
	// cancelled, server_shutdown.
	<-streamed
	if last.Type != EventCompleted || last.Envelope == nil || last.Envelope.Status != StatusCancelled ||
		last.Envelope.Error == nil || last.Envelope.Error.Code != CodeShutdown {
		t.Errorf("last event %s %+v, want response.completed cancelled %s", last.Type, last.Envelope, CodeShutdown)
	}
	select {
	case <-r.Done():
	default:
		t.Fatal("Shutdown returned before the run's outcome was recorded")
	}
	out := r.Outcome()
	if out.Err == nil || out.Err.Code != CodeShutdown || !errors.Is(out.Err, ErrUnavailable) {
		t.Errorf("outcome error %+v", out.Err)
	}
	env := receipt(t, s, r)
	if env.Status != StatusCancelled || env.Error == nil || env.Error.Code != CodeShutdown {
		t.Errorf("receipt %+v", env)
	}

	// No new response is admitted.
	_, err = s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "again", SessionID: r.SessionID})
	if !errors.Is(err, ErrUnavailable) || AsError(err).Code != CodeShutdown {
		t.Errorf("StartResponse after Shutdown = %v", err)
	}
}

func TestServiceShutdownWaitsForRuns(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	agent := AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		close(started)
		<-release
		return emit(Event{Type: EventTextDelta, Delta: "done"})
	})
	s := newTestService(t, agent, nil)
	r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "x"})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	var wg sync.WaitGroup
	var shutdownErr error
	wg.Go(func() { shutdownErr = s.Shutdown(context.Background()) })
	for closing := false; !closing; {
		time.Sleep(time.Millisecond)
		s.mu.Lock()
		closing = s.closing
		s.mu.Unlock()
	}
	select {
	case <-r.Done():
		t.Fatal("a graceful Shutdown cancelled the run")
	default:
	}
	close(release)
	wg.Wait()
	if shutdownErr != nil {
		t.Errorf("Shutdown = %v", shutdownErr)
	}
	if out := waitDone(t, r); out.Err != nil {
		t.Errorf("a run that finished during a graceful shutdown failed: %+v", out.Err)
	}
}

func TestServiceMissingSession(t *testing.T) {
	s := newTestService(t, AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		t.Error("agent ran for a missing session")
		return nil
	}), nil)
	_, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "x", SessionID: "nope"})
	if err == nil {
		t.Fatal("response on a missing session started")
	}
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrNotFound || !errors.Is(err, ErrNotFound) || e.Code != "session_not_found" {
		t.Errorf("err = %#v", err)
	}
}

func TestServiceStartResponseValidation(t *testing.T) {
	s := newTestService(t, AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error { return nil }),
		func(o *Options) { o.MaxInputBytes = 8 })
	for _, tt := range []struct {
		input string
		kind  error
	}{{"", ErrInvalid}, {" \n\t", ErrInvalid}, {"123456789", ErrTooLarge}} {
		if _, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: tt.input}); !errors.Is(err, tt.kind) {
			t.Errorf("input %q: err %v, want %v", tt.input, err, tt.kind)
		}
	}
}

func TestServiceNoOutputAndAgentFailure(t *testing.T) {
	tests := []struct {
		name string
		run  func(emit Emit) error
		kind error
		code string
	}{
		{"no output", func(emit Emit) error { return emit(Event{Type: EventTextDelta, Delta: "  "}) }, ErrNoOutput, CodeNoOutput},
		{"agent error", func(emit Emit) error { return errors.New("secret internal detail") }, ErrAgentFailed, CodeInvocationFailed},
		// A backend that passes on a store failure (Turn.History's) fails
		// the turn as the store being unavailable (503), not as the agent.
		{"store failure in the agent", func(emit Emit) error {
			return fmt.Errorf("read history: %w", Errorf(ErrUnavailable, CodeStoreUnavailable, "The state store is unavailable; retry shortly"))
		}, ErrUnavailable, CodeStoreUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestService(t, AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error { return tt.run(emit) }), nil)
			r, err := s.StartResponse(context.Background(), testUser, ResponseRequest{Input: "x", Stream: true})
			if err != nil {
				t.Fatal(err)
			}
			var last Event
			for e := range r.Events() {
				last = e
			}
			out := r.Outcome()
			if !errors.Is(out.Err, tt.kind) || out.Err.Code != tt.code {
				t.Errorf("outcome error %+v", out.Err)
			}
			if last.Type != EventError || last.Error != out.Err.Detail {
				t.Errorf("last event %+v", last)
			}
			env := receipt(t, s, r)
			if env.Status != StatusFailed || env.Error == nil || env.Error.Code != tt.code {
				t.Errorf("receipt %+v", env)
			}
			if b, _ := s.GetResponse(context.Background(), testUser, r.SessionID, r.ID); json.Valid(b) &&
				string(b) != string(out.Body) {
				t.Errorf("receipt %s differs from outcome body %s", b, out.Body)
			}
		})
	}
}
