package runtime

import (
	"encoding/json"

	"github.com/harnest/harnest/internal/jsonwrite"
)

// OutputApprovalResolved is the output item (and transcript tool activity)
// of an approval.resolved event.
const OutputApprovalResolved = "approval_resolved"

// ApprovalResolution is the payload of approval.resolved: how a human
// answered an approval, when it was more than a bare approve or deny. An
// edit names the arguments the action runs with and the ones the agent
// asked with; a respond names the result used in the action's place.
type ApprovalResolution struct {
	ID       string `json:"id"`
	Action   string `json:"action"`
	Decision string `json:"decision"`
	// Message is a denial's message, told to the agent.
	Message string `json:"message,omitempty"`
	// Edited: the action runs with Arguments instead of
	// OriginalArguments.
	Edited            bool            `json:"edited,omitempty"`
	Arguments         json.RawMessage `json:"arguments,omitempty"`
	OriginalArguments json.RawMessage `json:"originalArguments,omitempty"`
	// Result is used in the action's place (respond).
	Result json.RawMessage `json:"result,omitempty"`
}

// resolutionEvent is the approval.resolved event of an answer; false for
// a bare approve or deny, which the stream does not announce (its
// receipt's approvalId says it was answered).
func resolutionEvent(id string, req ApprovalRequest, a ApprovalAnswer) (Event, bool) {
	if a.bare() {
		return Event{}, false
	}
	res := &ApprovalResolution{ID: id, Action: req.Action, Decision: a.Decision, Message: a.Message, Result: a.Result}
	if a.Decision == DecisionEdit {
		res.Edited, res.Arguments, res.OriginalArguments = true, a.Arguments, req.Arguments
	}
	return Event{Type: EventApprovalResolved, Resolution: res}, true
}

// appendResolution writes the "resolution" member when r is set.
func appendResolution(o *jsonwrite.Object, r *ApprovalResolution) error {
	if r == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	o.Key("resolution")
	o.B = append(o.B, b...)
	return nil
}

// appendAnswers writes an approval's "answers" and "argumentsSchema" when
// they are set.
func appendAnswers(o *jsonwrite.Object, answers []string, schema json.RawMessage) error {
	o.StringsOmit("answers", answers)
	return o.RawOmit("argumentsSchema", schema)
}
