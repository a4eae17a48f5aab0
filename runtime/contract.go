package runtime

import (
	"encoding/json"
	"strings"

	"github.com/harnest/harnest/internal/contract"
)

// An agent's typed contract (Options.Contract, internal/contract). With an
// input schema, a turn's input is one data part holding an object that
// matches it (the neutral API's object input, an A2A data part, an MCP
// tool's arguments …); anything else is refused with input_invalid before
// anything is stored, listing each violation with its JSON Pointer. With
// an output schema, the answer must be JSON that matches it: the receipt
// carries the parsed value as result beside outputText, and an answer that
// does not match fails the response with output_invalid.

// Codes of the typed contract's refusals and failures.
const (
	CodeInputInvalid  = "input_invalid"
	CodeOutputInvalid = "output_invalid"
)

// errTypedInput refuses text or media sent to a typed agent.
var errTypedInput = &Error{Kind: ErrInvalid, Code: CodeInputInvalid,
	Detail: "This agent takes typed input: input must be a JSON object that matches its input schema (see createAgentResponse in /openapi.json)"}

// errOutputInvalid fails a response whose answer does not match the
// agent's output schema.
var errOutputInvalid = &Error{Kind: ErrAgentFailed, Code: CodeOutputInvalid,
	Detail: "The agent's answer does not match its output schema"}

// Contract is the agent's typed contract (nil: untyped).
func (s *Service) Contract() *contract.Contract {
	if s == nil {
		return nil
	}
	return s.contract
}

// checkInput refuses an input that breaks the agent's input schema. A
// typed input without text (an A2A data part) gets the object's JSON as
// its text, for transcripts and text-only backends.
func (s *Service) checkInput(req *ResponseRequest) error {
	if err := CheckTypedInput(s.contract, req.Parts); err != nil {
		return err
	}
	if s.contract.InputSchema() != nil && strings.TrimSpace(req.Input) == "" {
		req.Input = string(req.Parts[0].Data)
	}
	return nil
}

// CheckTypedInput checks a turn's input parts against c's input schema:
// nil for an untyped agent or a matching object; else an *Error with code
// input_invalid and, when the object breaks the schema, its violations.
func CheckTypedInput(c *contract.Contract, parts []InputPart) error {
	schema := c.InputSchema()
	if schema == nil {
		return nil
	}
	if len(parts) != 1 || parts[0].Type != "data" {
		return errTypedInput
	}
	data := parts[0].Data
	vs := []contract.Violation{{Message: "must be a JSON object"}}
	if len(data) > 0 && data[0] == '{' {
		vs = schema.Check(data)
	}
	if vs == nil {
		return nil
	}
	return &Error{Kind: ErrInvalid, Code: CodeInputInvalid, Violations: vs,
		Detail: "input does not match the agent's input schema: " + contract.Describe(vs)}
}

// checkOutput reads the answer as JSON (the result a backend set, else
// outputText) and checks it against the output schema: nil, with
// env.Result set to the value, or errOutputInvalid.
func (s *Service) checkOutput(responseID string, env *Envelope) *Error {
	value := env.Result
	if len(value) == 0 {
		var ok bool
		if value, ok = contract.ParseOutput(env.OutputText); !ok {
			s.log.Info("answer is not JSON; the output schema wants JSON", "responseId", responseID)
			return errOutputInvalid
		}
	}
	if vs := s.contract.OutputSchema().Check(value); vs != nil {
		s.log.Info("answer does not match the output schema", "responseId", responseID, "violations", contract.Describe(vs))
		return &Error{Kind: ErrAgentFailed, Code: CodeOutputInvalid, Violations: vs,
			Detail: errOutputInvalid.Detail + ": " + contract.Describe(vs)}
	}
	env.Result = json.RawMessage(value)
	return nil
}
