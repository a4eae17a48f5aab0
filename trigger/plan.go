package trigger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// plan is what a delivery asks for: a turn to start, or a wait to answer.
type plan struct {
	// A turn: its input and session key ("": a new session).
	input, sessionKey string
	// An answer: the wait's ID and either an approval's decision or a
	// client tool's output.
	waitID  string
	approve *bool
	output  json.RawMessage
	answers bool
}

// planError is a payload the trigger cannot map (400).
type planError struct{ detail string }

func (e *planError) Error() string { return e.detail }

func planErrorf(format string, args ...any) *planError {
	return &planError{detail: fmt.Sprintf(format, args...)}
}

// plan maps a verified payload: to an answer when the trigger answers
// waits and the payload names one, else to a turn when the trigger has an
// input.
func (t *trigger) plan(body []byte) (plan, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return plan{}, planErrorf("the payload is not JSON: %v", err)
	}
	if d.More() {
		return plan{}, planErrorf("the payload holds more than one JSON value")
	}
	if t.waitID != nil {
		if v, ok := t.waitID.Lookup(doc); ok {
			return t.planAnswer(doc, v)
		}
		if t.input.IsZero() {
			return plan{}, planErrorf("the payload has no wait ID at %s", t.waitID)
		}
	}
	input, err := t.input.Render(doc)
	if err != nil {
		return plan{}, planErrorf("input: %v", err)
	}
	if strings.TrimSpace(input) == "" {
		return plan{}, planErrorf("the input the payload makes is blank")
	}
	p := plan{input: input}
	if !t.session.IsZero() {
		key, err := t.session.Render(doc)
		if err != nil {
			return plan{}, planErrorf("session: %v", err)
		}
		if key == "" {
			return plan{}, planErrorf("the session key the payload makes is empty")
		}
		p.sessionKey = key
	}
	return p, nil
}

// planAnswer maps a payload that names a wait.
func (t *trigger) planAnswer(doc, id any) (plan, error) {
	waitID, ok := id.(string)
	if !ok || waitID == "" {
		return plan{}, planErrorf("the wait ID at %s is not a non-empty string", t.waitID)
	}
	p := plan{waitID: waitID, answers: true}
	if t.approved != nil {
		if v, ok := t.approved.Lookup(doc); ok {
			approve, ok := decision(v)
			if !ok {
				return plan{}, planErrorf("the decision at %s is not true, false, \"approve\", \"approved\", \"deny\" or \"denied\"", t.approved)
			}
			p.approve = &approve
			return p, nil
		}
	}
	if t.output != nil {
		if v, ok := t.output.Lookup(doc); ok {
			out, err := json.Marshal(v)
			if err != nil {
				return plan{}, planErrorf("the output at %s: %v", t.output, err)
			}
			p.output = out
			return p, nil
		}
	}
	return plan{}, planErrorf("the payload names wait %q but holds no answer to it (%s)", waitID, t.answerPointers())
}

func (t *trigger) answerPointers() string {
	var at []string
	if t.approved != nil {
		at = append(at, "a decision at "+t.approved.String())
	}
	if t.output != nil {
		at = append(at, "an output at "+t.output.String())
	}
	return strings.Join(at, " or ")
}

// decision reads an approval's decision.
func decision(v any) (approve, ok bool) {
	switch d := v.(type) {
	case bool:
		return d, true
	case string:
		switch strings.ToLower(d) {
		case "approve", "approved", "true":
			return true, true
		case "deny", "denied", "false":
			return false, true
		}
	}
	return false, false
}
