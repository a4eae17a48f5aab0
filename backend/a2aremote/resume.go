package a2aremote

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/harnest/harnest/runtime"
)

// Resume points (runtime.Journal). The remote task is the turn's resume
// point: as soon as the remote answers the message with a task that is
// not final yet, its ID and context are recorded (one store write; a turn
// the remote answers at once records nothing). When the turn's replica is
// lost (or hands it off on shutdown) and another replica runs the turn
// again, that attempt finds the task in the journal and re-attaches to it
// instead of sending the message again: it subscribes to the task when the
// card says the agent streams (as a signal that it moved on) and reads it
// (GetTask) until it is final, then answers with its artifacts whole. What
// the lost attempt streamed after the resume point was retracted by the
// runtime, so the answer is in the log once. A turn that ends because it
// continues on another replica leaves its remote task running.

// taskKey names the remote task in the turn's journal.
const taskKey = "a2a/task"

// recordedTask is what the resume point holds.
type recordedTask struct {
	TaskID    string `json:"taskId"`
	ContextID string `json:"contextId,omitempty"`
	// Continuing: the message answered this task, which waited for input;
	// StaleNote is its status message then, so that a re-attached turn
	// does not take the task as the message found it for its answer.
	Continuing bool   `json:"continuing,omitempty"`
	StaleNote  string `json:"staleNote,omitempty"`
}

// recallTask is the remote task an earlier attempt of the turn sent its
// message to, if any.
func recallTask(turn *runtime.Turn) (recordedTask, bool) {
	t, ok := runtime.RecallJSON[recordedTask](turn.Journal, taskKey)
	if !ok || t.TaskID == "" {
		return recordedTask{}, false
	}
	return t, true
}

// take applies an answer of the remote to the message and records the
// task it names (recordTask).
func (x *exchange) take(ctx context.Context, ev a2a.Event) error {
	if err := x.apply(ev); err != nil {
		return err
	}
	return x.recordTask(ctx)
}

// recordTask records the remote task once it is named and not final: from
// then on the message is never sent again for this turn.
func (x *exchange) recordTask(ctx context.Context) error {
	if x.journal == nil || x.recorded || x.taskID == "" || x.final() {
		return nil
	}
	x.recorded = true
	rec := recordedTask{TaskID: string(x.taskID), ContextID: x.contextID}
	if x.continuing != "" && x.continuing == x.taskID {
		rec.Continuing, rec.StaleNote = true, x.staleNote
	}
	return x.journal.RecordJSON(ctx, taskKey, rec)
}

// attached is the exchange of a turn re-attached to a recorded task.
func attached(emit runtime.Emit, agent string, t recordedTask) *exchange {
	x := newExchange(emit, agent, "")
	x.ids(a2a.TaskID(t.TaskID), t.ContextID)
	if t.Continuing {
		// A snapshot of the task still as the message found it is not
		// the answer (exchange.stale, past its first event).
		x.continuing, x.staleNote, x.received = x.taskID, t.StaleNote, 1
	}
	return x
}

// reattach follows a recorded remote task to its end without sending
// anything to it: a subscription (when the agent streams) wakes the turn
// as the task moves on, and the task is read until it is final. Its
// artifacts are folded whole from the final snapshot.
func (a *Agent) reattach(ctx context.Context, rem *remote, x *exchange) error {
	if rem.streams() {
		for ev, err := range rem.client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: x.taskID}) {
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				a.log.Info("cannot subscribe to the recorded remote task; polling it", "taskId", x.taskID, "err", a.scrub(err.Error()))
				break
			}
			if finalEvent(ev) {
				break
			}
		}
	}
	task, err := rem.client.GetTask(ctx, &a2a.GetTaskRequest{ID: x.taskID})
	if err != nil {
		return err
	}
	if err := x.apply(task); err != nil {
		return err
	}
	return a.poll(ctx, rem, x)
}

// finalEvent reports an event of a subscription after which the task
// changes no more (or waits for input).
func finalEvent(ev a2a.Event) bool {
	var s a2a.TaskState
	switch e := ev.(type) {
	case *a2a.Task:
		s = e.Status.State
	case *a2a.TaskStatusUpdateEvent:
		s = e.Status.State
	case *a2a.Message:
		return true
	}
	return s.Terminal() || interrupted(s)
}
