package backend

import (
	"github.com/harnest/harnest/runtime"
)

// The echo agent takes steers (runtime.Steerable): at each of its steps
// (after each pause, and once more at the end) it answers the messages
// handed to the running turn, each with one text delta "Echo: <input>".
// Without steers it answers as before.

// TakesSteers reports that echo turns take steers.
func (e *Echo) TakesSteers() bool { return true }

var _ runtime.Steerable = (*Echo)(nil)

// answerSteers takes the turn's waiting steers and echoes each.
func answerSteers(turn *runtime.Turn, emit runtime.Emit) error {
	if !turn.Steers.Pending() {
		return nil
	}
	steers, err := turn.Steers.Take()
	if err != nil {
		return err
	}
	for _, st := range steers {
		if err := emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "Echo: " + st.Input}); err != nil {
			return err
		}
	}
	return nil
}
