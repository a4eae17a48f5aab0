package a2aremote

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/harnest/harnest/internal/netguard"
	"github.com/harnest/harnest/runtime"
)

// The receipt codes of a turn the remote agent did not answer. Their
// sentences reach the caller; they never hold the token, the remote's own
// words or an address (those go to the log).
const (
	CodeUnavailable  = "remote_unavailable"   // unreachable, or refused by the address guard
	CodeAuthRequired = "remote_auth_required" // the remote wants (other) credentials
	CodeRejected     = "remote_rejected"      // the remote rejected the task
	CodeFailed       = "remote_failed"        // the remote failed or cancelled the task, or answered with an error
	CodeBadResponse  = "remote_bad_response"  // an answer that cannot be read, or one over the size limit
	CodeTimeout      = "remote_timeout"       // no answer within spec.backend.a2a.timeoutSeconds
)

func errUnavailable() error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, CodeUnavailable,
		"The remote A2A agent could not be reached; check spec.backend.a2a.url and allowHosts, and that the agent is running")
}

func errAuthRequired() error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, CodeAuthRequired,
		"The remote A2A agent asks for authentication; check spec.backend.a2a.token")
}

func errRejected() error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, CodeRejected, "The remote A2A agent rejected the task")
}

func errFailed() error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, CodeFailed, "The remote A2A agent failed the task")
}

func errCancelledByRemote() error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, CodeFailed, "The remote A2A agent cancelled the task")
}

func errAnsweredWithError() error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, CodeFailed, "The remote A2A agent answered the message with an error")
}

func errBadResponse() error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, CodeBadResponse,
		"The remote A2A agent sent an answer harnest cannot read (malformed, or over the size limit)")
}

func errTimeout() error {
	return runtime.Errorf(runtime.ErrTimeout, CodeTimeout,
		"The remote A2A agent did not finish within spec.backend.a2a.timeoutSeconds")
}

// classify turns a failed exchange into the error of the turn, and says
// what to log about it (never the token: see scrub).
func classify(err error, note *callNote) (turnErr error, why string) {
	status := 0
	if note != nil {
		status = note.lastStatus()
	}
	var refused *netguard.RefusedError
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	var netErr net.Error
	var own *runtime.Error
	switch {
	case errors.As(err, &own):
		return own, own.Detail
	case errors.As(err, &refused):
		return errUnavailable(), "the address guard refused the request: " + refused.Reason
	case errors.Is(err, netguard.ErrTooLarge):
		return errBadResponse(), "the answer was larger than the limit"
	case status == http.StatusUnauthorized || status == http.StatusForbidden,
		errors.Is(err, a2a.ErrUnauthenticated), errors.Is(err, a2a.ErrUnauthorized):
		return errAuthRequired(), "the remote agent refused the credentials"
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr), errors.Is(err, a2a.ErrInvalidAgentResponse):
		return errBadResponse(), "the answer is not valid A2A"
	case status >= 500, status == http.StatusNotFound, status == http.StatusTooManyRequests:
		return errUnavailable(), "the remote agent answered with an HTTP error status"
	case errors.As(err, &netErr), errors.Is(err, context.DeadlineExceeded):
		return errUnavailable(), "the remote agent could not be reached"
	case isA2AError(err):
		return errAnsweredWithError(), "the remote agent answered with an A2A error"
	case status >= 400:
		return errAnsweredWithError(), "the remote agent answered with an HTTP error status"
	}
	return errUnavailable(), "the exchange with the remote agent failed"
}

// isA2AError reports one of the protocol's errors, as a remote sends them.
func isA2AError(err error) bool {
	for _, e := range []error{a2a.ErrParseError, a2a.ErrInvalidRequest, a2a.ErrMethodNotFound, a2a.ErrInvalidParams,
		a2a.ErrInternalError, a2a.ErrServerError, a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable,
		a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType, a2a.ErrExtensionSupportRequired,
		a2a.ErrVersionNotSupported} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// taskGone reports an error that says the task a message continued no
// longer takes messages: the next try starts a new task.
func taskGone(err error) bool {
	return errors.Is(err, a2a.ErrTaskNotFound) || errors.Is(err, a2a.ErrUnsupportedOperation) ||
		errors.Is(err, a2a.ErrInvalidParams) || errors.Is(err, a2a.ErrTaskNotCancelable)
}
