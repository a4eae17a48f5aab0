package a2aremote

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/harnest/harnest/runtime"
)

// A turn re-attached to a task its message continued (the task waited for
// input) does not take the task as the message found it for the answer: a
// snapshot still input-required with the same status message is stale;
// the task's next state is the answer.
func TestReattachedContinuationSkipsTheStaleTask(t *testing.T) {
	var events []runtime.Event
	emit := func(e runtime.Event) error { events = append(events, e); return nil }
	x := attached(emit, "peer", recordedTask{TaskID: "t1", ContextID: "c1", Continuing: true, StaleNote: "q1"})
	question := &a2a.Message{ID: "q1", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("What is your name?")}}
	stale := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: question}}
	if err := x.apply(stale); err != nil {
		t.Fatal(err)
	}
	if x.final() {
		t.Fatalf("the task as the message found it ended the turn (state %s)", x.state)
	}
	done := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted},
		Artifacts: []*a2a.Artifact{{ID: "a1", Parts: a2a.ContentParts{a2a.NewTextPart("Hello, Bob!")}}}}
	if err := x.apply(done); err != nil {
		t.Fatal(err)
	}
	if !x.final() || x.text.String() != "Hello, Bob!" {
		t.Fatalf("final %v, text %q", x.final(), x.text.String())
	}
}
