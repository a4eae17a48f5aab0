package backend

import (
	"github.com/harnest/harnest/runtime"
)

// Steering a worker's turn (runtime.Steerable): a message handed to the
// running turn is sent to the worker at once as a steer line, which the
// worker hands to its agent at its next step (docs/worker-protocol.md).
// The turn's stream says response.steered when the line is sent, and the
// transcript keeps the message there.

// TakesSteers reports that worker turns take steers.
func (w *Workers) TakesSteers() bool { return true }

var _ runtime.Steerable = (*Workers)(nil)

// steerLine is a steer as the worker gets it.
type steerLine struct {
	Type    string          `json:"type"` // "steer"
	ID      string          `json:"id"`   // the turn's
	SteerID string          `json:"steerId"`
	Input   string          `json:"input"`
	Content []workerContent `json:"content"`
}

// onSteer sends the worker every steer waiting in the turn's inbox.
func (t *workerTurn) onSteer() turnEnd {
	steers, err := t.turn.Steers.Take()
	if err != nil {
		return t.abandon(err)
	}
	for _, st := range steers {
		content, err := workerContentOf(t.reqCtx, &runtime.Turn{Input: st.Input, Content: st.Content})
		if err != nil {
			return t.abandon(err)
		}
		line, err := encodeLine(steerLine{Type: "steer", ID: t.id, SteerID: st.ID, Input: st.Input, Content: content})
		if err != nil {
			return t.abandon(err)
		}
		t.p.send(line)
	}
	return goOn
}
