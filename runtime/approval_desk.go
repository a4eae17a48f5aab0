package runtime

import "context"

// ApprovalDesk answers approvals that belong to no response: the relay's
// tool calls at home, which an outside agent makes while it works on an
// inbox item. POST /approvals/{id} (Service.Decide) hands it the IDs it
// owns, so that an owner answers every approval in one place.
type ApprovalDesk interface {
	// Owns reports whether the approval ID is one of the desk's (by its
	// form alone: no store round trip).
	Owns(approvalID string) bool
	// Decide records the decision of p exactly once and returns the JSON
	// to answer with. Errors are *Error: ErrNotFound when p has no such
	// approval, ErrConflict when it was already decided.
	Decide(ctx context.Context, p Principal, approvalID string, approve bool) ([]byte, error)
}
