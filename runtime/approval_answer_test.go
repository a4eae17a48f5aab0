package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
	"github.com/harnest/harnest/store/memstore"
)

// answeringAgent asks for one approval that takes every answer and says
// what it was answered.
func answeringAgent(runs *atomic.Int64) Agent {
	return AgentFunc(func(ctx context.Context, turn *Turn, emit Emit) error {
		runs.Add(1)
		a, err := turn.Approval(ctx, ApprovalRequest{Action: "deploy", Message: "Deploy?", Arguments: json.RawMessage(`{"version":"v1"}`),
			Answers: []string{DecisionEdit, DecisionRespond}, Schema: json.RawMessage(deploySchema)})
		if err != nil {
			return err
		}
		b, _ := json.Marshal(a)
		return emit(Event{Type: EventTextDelta, Delta: string(b)})
	})
}

const deploySchema = `{"type":"object","properties":{"version":{"type":"string","pattern":"^v[0-9]+$"}},"required":["version"]}`

// The richer answer is stored with the wait: a run suspended on a lost
// replica, run again on the replica that took the answer, takes the same
// answer (the edited arguments), and edited arguments that break the
// schema are refused with nothing changed.
func TestEditAnswerOfALostReplica(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	expires := time.Now().Add(time.Hour)
	id := waitIDFor("approval_", "resp_lost", store.WaitApproval, "resp_lost", 1)
	action := &RequiredAction{Type: "human_approval", ID: id, CallID: "resp_lost", Action: "deploy", ExpiresAt: timestamp(expires),
		Answers: []string{DecisionApprove, DecisionDeny, DecisionEdit, DecisionRespond}, ArgumentsSchema: json.RawMessage(deploySchema)}
	lostWaitingRun(t, st, action, store.WaitApproval, expires)
	var runs atomic.Int64
	s := claimingService(t, st, answeringAgent(&runs), true, 0)
	parked(t, st)
	ctx := context.Background()
	u := Principal{UserID: "u"}

	_, err := s.DecideWith(ctx, u, id, ApprovalAnswer{Decision: DecisionEdit, Arguments: json.RawMessage(`{"version":"latest"}`)})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidArguments || len(e.Violations) != 1 || e.Violations[0].Pointer != "/version" {
		t.Fatalf("bad arguments: %v", err)
	}
	if w, _, _ := st.GetWait(ctx, "u", id); w.Status != store.WaitPending || runs.Load() != 0 {
		t.Fatalf("a refused answer changed the wait (%+v) or ran the turn (%d)", w, runs.Load())
	}

	answer, err := s.DecideWith(ctx, u, id, ApprovalAnswer{Decision: DecisionEdit, Arguments: json.RawMessage(`{ "version": "v2" }`)})
	if err != nil || answer.Err != nil {
		t.Fatalf("answer: %v %v", err, answer.Err)
	}
	var env Envelope
	if err := json.Unmarshal(answer.Body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Status != StatusCompleted || env.OutputText != `{"decision":"edit","arguments":{"version":"v2"}}` || runs.Load() != 1 {
		t.Fatalf("answer %s, agent runs %d", answer.Body, runs.Load())
	}
	var res *ApprovalResolution
	for _, item := range env.Output {
		if item.Type == OutputApprovalResolved {
			res = item.Resolution
		}
	}
	if res == nil || !res.Edited || string(res.Arguments) != `{"version":"v2"}` || string(res.OriginalArguments) != `{"version":"v1"}` {
		t.Fatalf("resolution %+v", res)
	}
}

// An agent that asks for approve or deny only (RequestApproval) is never
// handed an edit or a result: such answers are refused.
func TestAnswerNotOffered(t *testing.T) {
	st := memstore.New(memstore.Options{})
	t.Cleanup(func() { _ = st.Close() }) // after the service's shutdown (cleanups run last first)
	id := suspendedLostRun(t, st, time.Now().Add(time.Hour))
	var runs atomic.Int64
	s := claimingService(t, st, approvingAgent(&runs), true, 0)
	parked(t, st)
	ctx := context.Background()
	for _, a := range []ApprovalAnswer{{Decision: DecisionEdit, Arguments: json.RawMessage(`{}`)}, {Decision: DecisionRespond, Result: json.RawMessage(`1`)}} {
		_, err := s.DecideWith(ctx, Principal{UserID: "u"}, id, a)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeAnswerNotOffered || !errors.Is(err, ErrInvalid) {
			t.Fatalf("%s: %v", a.Decision, err)
		}
	}
	if w, _, _ := st.GetWait(ctx, "u", id); w.Status != store.WaitPending {
		t.Fatalf("a refused answer changed the wait: %+v", w)
	}
	// A denial's message reaches every agent's yes or no.
	answer, err := s.DecideWith(ctx, Principal{UserID: "u"}, id, ApprovalAnswer{Decision: DecisionDeny, Message: "not today"})
	if err != nil || !strings.Contains(string(answer.Body), `"denied"`) {
		t.Fatalf("denial: %s %v", answer.Body, err)
	}
}

func TestParseApprovalAnswer(t *testing.T) {
	good := map[string]ApprovalAnswer{
		`{"decision":"approve"}`:                       Approve,
		`{"decision":"deny"}`:                          Deny,
		`{"decision":"deny","message":"no"}`:           {Decision: DecisionDeny, Message: "no"},
		`{"decision":"edit","arguments":{ "a" : 1 }}`:  {Decision: DecisionEdit, Arguments: json.RawMessage(`{"a":1}`)},
		`{"decision":"respond","result":"done"}`:       {Decision: DecisionRespond, Result: json.RawMessage(`"done"`)},
		`{"decision":"respond","result":{"ok":[1,2]}}`: {Decision: DecisionRespond, Result: json.RawMessage(`{"ok":[1,2]}`)},
	}
	for body, want := range good {
		got, err := ParseApprovalAnswer([]byte(body))
		if err != nil || got.Decision != want.Decision || got.Message != want.Message ||
			string(got.Arguments) != string(want.Arguments) || string(got.Result) != string(want.Result) {
			t.Errorf("%s: %+v %v", body, got, err)
		}
	}
	for _, body := range []string{`[]`, `{}`, `{"decision":"yes"}`, `{"decision":"approve","arguments":{}}`, `{"decision":"deny","message":1}`,
		`{"decision":"edit"}`, `{"decision":"edit","arguments":"x"}`, `{"decision":"respond"}`, `{"decision":"respond","result":null}`,
		`{"decision":"deny","result":1}`} {
		if _, err := ParseApprovalAnswer([]byte(body)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s was taken (%v)", body, err)
		}
	}
}
