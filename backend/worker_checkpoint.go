package backend

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/harnest/harnest/runtime"
)

// Checkpoints: the resume points of a worker (runtime.Journal). A worker
// that resumes (spec.backend.exec.resumes) sends checkpoint lines during a
// turn, each an opaque JSON value it can continue from. Each is recorded
// once the events of the lines before it are emitted, in one fenced store
// write with them, under one journal key: a later checkpoint replaces the
// earlier. When the turn's replica is lost and another runs it again, the
// events up to the last checkpoint stay the turn's, only those after it are
// retracted, and the new attempt's turn line carries the attempt number and
// that checkpoint: the worker continues from it and sends only what comes
// after it.
//
// Only a turn that can run again keeps checkpoints (runtime/journal.go);
// for the others a checkpoint line costs nothing and does nothing.

// workerCheckpointKey is the journal key of a worker's last checkpoint.
const workerCheckpointKey = "worker/checkpoint"

// workerCheckpointMax bounds a checkpoint's JSON value: it is written to
// the store with the turn and sent back in a turn line.
const workerCheckpointMax = 1 << 20

// decodeCheckpoint reads the value of a checkpoint line: any JSON value
// but null, of at most workerCheckpointMax bytes.
func decodeCheckpoint(fields lineFields) (json.RawMessage, error) {
	raw, ok := fields["value"]
	switch {
	case !ok || isNull(raw):
		return nil, errors.New(`field "value" is missing`)
	case len(raw) > workerCheckpointMax:
		return nil, fmt.Errorf(`field "value" is %d bytes; a checkpoint may be at most %d bytes (keep a reference to larger state, not the state)`,
			len(raw), workerCheckpointMax)
	}
	return raw, nil
}

// recallCheckpoint is the last checkpoint an earlier attempt of the turn
// recorded (nil on a first attempt or when it sent none).
func recallCheckpoint(turn *runtime.Turn) json.RawMessage {
	data, ok := turn.Journal.Recall(workerCheckpointKey)
	if !ok || !json.Valid(data) {
		return nil
	}
	return data
}

// onCheckpoint records a checkpoint after the events emitted so far. A
// refused turn (a denied approval) records nothing more: its output ended.
func (t *workerTurn) onCheckpoint(m workerMessage) turnEnd {
	if t.refusal != nil {
		return goOn
	}
	if err := t.turn.Journal.Record(t.reqCtx, workerCheckpointKey, m.Checkpoint); err != nil {
		return t.abandon(err)
	}
	return goOn
}
