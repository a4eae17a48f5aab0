package a2a

import "github.com/harnest/harnest/runtime"

// A blocking send that becomes a task folds the events its response kept
// (runtime.ResponseRequest.KeepEvents) into the task: the response went
// down once and came back once with everything the task is made of, so
// nothing is read back from the log.

// foldOutcome folds the outcome's events into the task and, when they
// leave it open, ends it from the outcome's receipt, as refresh does from
// the log. false: this replica recorded no receipt (another replica
// claimed the run), so the log and the store must tell.
func (m *mapper) foldOutcome(out runtime.Outcome) bool {
	receipt, recorded := out.Receipt()
	if !recorded || out.Events == nil {
		return false
	}
	for _, e := range out.Events {
		m.apply(frameOf(e))
	}
	if !terminal(m.task.Status.State) {
		m.applyReceipt(receipt)
	}
	return true
}
