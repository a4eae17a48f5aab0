package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/harnest/harnest/internal/contract"
	"github.com/harnest/harnest/store"
)

// Approval answers. A human answers an approval with one of four
// decisions:
//
//	{"decision": "approve"}
//	{"decision": "deny", "message"?: "why"}          the message is told to the agent
//	{"decision": "edit", "arguments": {...}}          the action runs with these arguments
//	{"decision": "respond", "result": <any JSON>}     the action does not run; the agent takes this as its result
//
// Every agent takes approve and deny; edit and respond only an agent that
// asks for them (ApprovalRequest.Answers), which its approval lists in
// requiredAction.answers. Edited arguments must match the action's schema
// (ApprovalRequest.Schema, requiredAction.argumentsSchema): the answer is
// refused (invalid_arguments, with each violation's JSON Pointer) and
// nothing changes. The answer is stored with the wait (its output), so a
// turn resumed on any replica, or run again after its replica was lost,
// takes the same answer. A richer answer than a bare approve or deny is
// announced in the stream as approval.resolved, and the answer's output
// and transcript keep it (an approval_resolved item).

// Approval decisions.
const (
	DecisionApprove = "approve"
	DecisionDeny    = "deny"
	DecisionEdit    = "edit"
	DecisionRespond = "respond"
)

// Codes of refused approval answers.
const (
	CodeInvalidDecision  = "invalid_decision"
	CodeInvalidArguments = "invalid_arguments"
	CodeAnswerNotOffered = "answer_not_offered"
)

// ApprovalAnswer is a human's answer to an approval.
type ApprovalAnswer struct {
	Decision string `json:"decision"`
	// Message is told to the agent with a denial ("deny" only).
	Message string `json:"message,omitempty"`
	// Arguments replace the action's arguments ("edit" only; an object).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Result is used in the action's place ("respond" only; any JSON).
	Result json.RawMessage `json:"result,omitempty"`
}

// Approve and Deny are the bare answers.
var (
	Approve = ApprovalAnswer{Decision: DecisionApprove}
	Deny    = ApprovalAnswer{Decision: DecisionDeny}
)

// AnswerOf is the bare answer of a yes or no.
func AnswerOf(approve bool) ApprovalAnswer {
	if approve {
		return Approve
	}
	return Deny
}

// Approved reports whether the action goes on (approve or edit): what a
// transport with only yes and no tells its client.
func (a ApprovalAnswer) Approved() bool {
	return a.Decision == DecisionApprove || a.Decision == DecisionEdit
}

// bare reports whether the answer is a plain approve or deny, which the
// store keeps as the wait's status alone (as before richer answers).
func (a ApprovalAnswer) bare() bool {
	return (a.Decision == DecisionApprove || a.Decision == DecisionDeny) && a.Message == "" &&
		len(a.Arguments) == 0 && len(a.Result) == 0
}

// errDecision refuses a malformed answer.
func errDecision(detail string) *Error {
	return &Error{Kind: ErrInvalid, Code: CodeInvalidDecision, Detail: detail}
}

// ParseApprovalAnswer reads an answer object: {"decision": ...} with the
// members its decision takes and no others. Errors are *Error with code
// invalid_decision.
func ParseApprovalAnswer(body []byte) (ApprovalAnswer, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return ApprovalAnswer{}, errDecision(`An approval answer is a JSON object: {"decision": "approve"|"deny"|"edit"|"respond", ...}`)
	}
	return ApprovalAnswerOf(fields)
}

// ApprovalAnswerOf is ParseApprovalAnswer of an object already decoded.
func ApprovalAnswerOf(fields map[string]json.RawMessage) (ApprovalAnswer, error) {
	var a ApprovalAnswer
	if json.Unmarshal(fields["decision"], &a.Decision) != nil {
		a.Decision = ""
	}
	allowed := map[string]string{DecisionApprove: "", DecisionDeny: "message", DecisionEdit: "arguments", DecisionRespond: "result"}
	member, known := allowed[a.Decision]
	if !known {
		return ApprovalAnswer{}, errDecision("decision must be approve, deny, edit or respond")
	}
	for name := range fields {
		if name != "decision" && name != member {
			return ApprovalAnswer{}, errDecision(unexpectedMember(a.Decision, name, member))
		}
	}
	raw, has := fields[member]
	switch a.Decision {
	case DecisionDeny:
		if has && json.Unmarshal(raw, &a.Message) != nil {
			return ApprovalAnswer{}, errDecision("message must be a string: a sentence told to the agent")
		}
	case DecisionEdit:
		raw = bytes.TrimSpace(raw)
		if !has || len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
			return ApprovalAnswer{}, errDecision(`edit takes the new arguments as an object: {"decision": "edit", "arguments": {...}}`)
		}
		a.Arguments = compactJSON(raw)
	case DecisionRespond:
		if !has || isJSONNull(raw) {
			return ApprovalAnswer{}, errDecision(`respond takes the result used in the action's place: {"decision": "respond", "result": <any JSON>}`)
		}
		a.Result = compactJSON(raw)
	}
	return a, nil
}

// check refuses an answer made by a door that is not one
// ParseApprovalAnswer would take.
func (a ApprovalAnswer) check() error {
	switch a.Decision {
	case DecisionApprove, DecisionDeny:
		if len(a.Arguments) > 0 || len(a.Result) > 0 || (a.Decision == DecisionApprove && a.Message != "") {
			return errDecision(a.Decision + " takes no arguments or result")
		}
	case DecisionEdit:
		if len(a.Arguments) == 0 || a.Arguments[0] != '{' || !json.Valid(a.Arguments) {
			return errDecision("edit takes the new arguments as a JSON object")
		}
	case DecisionRespond:
		if len(a.Result) == 0 || isJSONNull(a.Result) || !json.Valid(a.Result) {
			return errDecision("respond takes the result used in the action's place (any JSON value but null)")
		}
	default:
		return errDecision("decision must be approve, deny, edit or respond")
	}
	return nil
}

func unexpectedMember(decision, name, member string) string {
	if member == "" {
		return decision + ` takes no other member than "decision" (not "` + name + `")`
	}
	return decision + ` takes "decision" and "` + member + `" only (not "` + name + `")`
}

func compactJSON(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return json.RawMessage(raw)
	}
	return b.Bytes()
}

func isJSONNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

// storedAnswer is what the store keeps of an answer: the wait's status,
// and the answer as its output unless it is a bare approve or deny.
func storedAnswer(a ApprovalAnswer) (status string, output []byte) {
	status = store.WaitApproved
	if a.Decision == DecisionDeny {
		status = store.WaitDenied
	}
	if a.bare() {
		return status, nil
	}
	output, _ = json.Marshal(a)
	return status, output
}

// answerOfWait reads the answer a resolved approval wait holds.
func answerOfWait(w store.Wait) ApprovalAnswer {
	if len(w.Output) > 0 {
		var a ApprovalAnswer
		if json.Unmarshal(w.Output, &a) == nil && a.Decision != "" {
			return a
		}
	}
	return AnswerOf(w.Status == store.WaitApproved)
}

// offeredAnswers is requiredAction.answers of a request: nil for approve
// and deny only.
func offeredAnswers(req ApprovalRequest) []string {
	var extra []string
	for _, d := range []string{DecisionEdit, DecisionRespond} {
		if slices.Contains(req.Answers, d) {
			extra = append(extra, d)
		}
	}
	if extra == nil {
		return nil
	}
	return append([]string{DecisionApprove, DecisionDeny}, extra...)
}

// checkApprovalAnswer refuses, before anything is stored, an answer the
// approval does not take: edit or respond to an agent that did not offer
// them, edited arguments that break the action's schema. An approval that
// is not found or no longer pending is left to resolve (404, 409).
func (s *Service) checkApprovalAnswer(ctx context.Context, p Principal, id string, a ApprovalAnswer) error {
	if err := a.check(); err != nil {
		return err
	}
	if a.Decision == DecisionApprove || a.Decision == DecisionDeny {
		return nil
	}
	w, found, err := s.store.GetWait(ctx, p.UserID, id)
	if err != nil {
		return s.storeFailure(err)
	}
	if !found || w.Kind != store.WaitApproval || w.Status != store.WaitPending {
		return nil
	}
	receipt, found, err := s.store.Receipt(ctx, p.UserID, w.Session, w.ResponseID)
	if err != nil {
		return s.storeFailure(err)
	}
	var env struct {
		RequiredAction *RequiredAction `json:"requiredAction"`
	}
	if !found || json.Unmarshal(receipt, &env) != nil || env.RequiredAction == nil || env.RequiredAction.ID != id {
		return nil
	}
	return checkAnswerFor(env.RequiredAction, a)
}

// checkAnswerFor checks an edit or respond answer against the approval
// that asked.
func checkAnswerFor(ra *RequiredAction, a ApprovalAnswer) error {
	if !slices.Contains(ra.Answers, a.Decision) {
		offered := ra.Answers
		if offered == nil {
			offered = []string{DecisionApprove, DecisionDeny}
		}
		return &Error{Kind: ErrInvalid, Code: CodeAnswerNotOffered,
			Detail: "This approval takes " + strings.Join(offered, ", ") + " (its requiredAction.answers), not " + a.Decision}
	}
	if a.Decision != DecisionEdit || len(ra.ArgumentsSchema) == 0 {
		return nil
	}
	schema, err := contract.Compile("arguments schema", ra.ArgumentsSchema)
	if err != nil {
		return nil // the agent's own schema; its tool checks the arguments again
	}
	if vs := schema.Check(a.Arguments); vs != nil {
		return &Error{Kind: ErrInvalid, Code: CodeInvalidArguments, Violations: vs,
			Detail: "The edited arguments do not match the schema of " + ra.Action + ": " + contract.Describe(vs)}
	}
	return nil
}

// errDeskAnswer refuses a richer answer to an approval of the desk (the
// relay's tool calls at home), which takes approve or deny.
var errDeskAnswer = &Error{Kind: ErrInvalid, Code: CodeAnswerNotOffered,
	Detail: "A tool call approval takes approve or deny"}

// DecideWith answers an approval with any decision (Decide is the yes or
// no of it): the response's next boundary, or {"id", "status":"denied"}
// when a denial ended it. A refused answer changes nothing.
func (s *Service) DecideWith(ctx context.Context, p Principal, approvalID string, a ApprovalAnswer) (Answer, error) {
	if s.approvals != nil && s.approvals.Owns(approvalID) {
		if !a.bare() {
			return Answer{}, errDeskAnswer
		}
		body, err := s.approvals.Decide(ctx, p, approvalID, a.Decision == DecisionApprove)
		return Answer{Body: body}, err
	}
	res, err := s.AnswerApprovalWith(ctx, p, approvalID, a)
	if err != nil {
		return Answer{}, err
	}
	answer, err := s.NextBoundary(ctx, p, res)
	if a.Decision != DecisionDeny || err != nil || answer.Err != nil {
		return answer, err
	}
	// Most agents end a denied response (the receipt becomes denied); an
	// agent that goes on without the action (a model told of the denial)
	// reaches another boundary, which is then the answer.
	if env, ok := envelopeOf(answer.Body); ok && env.Status == StatusDenied {
		body, _ := json.Marshal(map[string]string{"id": approvalID, "status": StatusDenied})
		return Answer{Body: body}, nil
	}
	return answer, nil
}

// AnswerApprovalWith records an answer exactly once (after checking it
// against the approval) and tells the replica that holds the response,
// without waiting.
func (s *Service) AnswerApprovalWith(ctx context.Context, p Principal, approvalID string, a ApprovalAnswer) (Resumption, error) {
	if err := s.checkApprovalAnswer(ctx, p, approvalID, a); err != nil {
		return Resumption{}, err
	}
	status, output := storedAnswer(a)
	w, err := s.resolve(ctx, p, approvalID, store.WaitApproval, status, output)
	return Resumption{ResponseID: w.ResponseID, SessionID: w.Session, After: w.AfterSequence}, err
}

// errNoApprovals is what Turn.Approval returns when the runtime offers no
// approvals for the turn.
var errNoApprovals = errors.New("the runtime offers no approvals for this turn")

// Approval suspends the turn until a human answers the approval and
// returns the answer (any decision; deny is an answer, not an error). It
// returns ErrApprovalExpired when nobody answered in time. A turn with
// only RequestApproval (a test's, an older wrapper's) gets approve or deny.
func (t *Turn) Approval(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error) {
	if t.AskApproval != nil {
		return t.AskApproval(ctx, req)
	}
	if t.RequestApproval == nil {
		return ApprovalAnswer{}, errNoApprovals
	}
	err := t.RequestApproval(ctx, req)
	switch {
	case err == nil:
		return Approve, nil
	case errors.Is(err, ErrApprovalDenied):
		return Deny, nil
	}
	return ApprovalAnswer{}, err
}
