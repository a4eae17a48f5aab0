package backend

import (
	"errors"
	"strings"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/internal/contract"
	"github.com/harnest/harnest/runtime"
)

// Structured output of the model backend, for an agent with an output
// schema (spec.outputSchema, internal/contract). Every call asks the
// endpoint for structured output (response_format json_schema, not
// strict: a schema need not meet OpenAI's strict subset). The answer's
// text is not streamed while the model writes it: the final answer is
// checked against the schema, and one that does not match is sent back
// with what is wrong, up to maxOutputRepairs times. Only then is the
// answer emitted, as one text delta of its JSON; the runtime parses it
// into the receipt's result, or fails the response with output_invalid
// when even the last repair does not match (runtime/contract.go). An
// endpoint that rejects response_format (HTTP 4xx) is asked again without
// it, and never again by this backend: the check and the repairs then do
// the work alone.

// maxOutputRepairs bounds how often an answer that does not match the
// output schema is sent back to the model.
const maxOutputRepairs = 2

// modelOutput is the output contract of one turn; nil: text answers.
type modelOutput struct {
	schema  *contract.Schema
	format  *chat.ResponseFormat
	repairs int
}

// newModelOutput is the turn's output contract, nil without a schema;
// plain: the endpoint does not take response_format.
func newModelOutput(schema *contract.Schema, plain bool) *modelOutput {
	if schema == nil {
		return nil
	}
	o := &modelOutput{schema: schema}
	if !plain {
		o.format = &chat.ResponseFormat{Type: "json_schema", JSONSchema: chat.JSONSchema{Name: "agent_output", Schema: schema.JSON()}}
	}
	return o
}

// formatRejected reports a call the endpoint rejected (HTTP 4xx) while it
// was asked for structured output; the turn stops asking.
func (o *modelOutput) formatRejected(err error) bool {
	var e *runtime.Error
	if o == nil || o.format == nil || !errors.As(err, &e) || e.Code != chat.CodeBadResponse || !strings.Contains(e.Detail, "rejected the request") {
		return false
	}
	o.format = nil
	return true
}

// responseFormat is what to ask the endpoint for (nil: text).
func (o *modelOutput) responseFormat() *chat.ResponseFormat {
	if o == nil {
		return nil
	}
	return o.format
}

// repair checks a final answer. It returns the messages that ask the model
// again when the answer does not match and a repair is left (and steps
// are: lastStep says this was the turn's last); nil when the answer is to
// be emitted as it is.
func (o *modelOutput) repair(answer string, lastStep bool) []chat.Message {
	var problem string
	value, ok := contract.ParseOutput(answer)
	switch {
	case !ok:
		problem = "it is not a JSON value"
	default:
		vs := o.schema.Check(value)
		if vs == nil {
			return nil
		}
		problem = contract.Describe(vs)
	}
	if o.repairs == maxOutputRepairs || lastStep {
		return nil
	}
	o.repairs++
	return []chat.Message{
		{Role: "assistant", Content: chat.Text(answer)},
		{Role: "user", Content: chat.Text("Your answer does not match the required output schema: " + problem +
			". Answer again with only a JSON value that matches the schema, nothing else.")},
	}
}

// emitAnswer emits the final answer: its compact JSON when it is JSON,
// else its text (which the runtime then refuses).
func emitAnswer(answer string, emit runtime.Emit) error {
	if value, ok := contract.ParseOutput(answer); ok {
		answer = string(value)
	}
	if answer == "" {
		return nil
	}
	return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: answer})
}
