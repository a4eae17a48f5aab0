package runtime

// failedError is the error of a response that failed with code, as a
// receipt or a follower reads it back: the runtime's own value for the
// codes it gives (timed_out, no_output), else an agent failure with that
// code (invocation_failed when none) and detail.
func failedError(code, detail string) *Error {
	switch code {
	case CodeTimedOut:
		return errTimedOut
	case CodeNoOutput:
		return errNoOutput
	case "":
		code = CodeInvocationFailed
	}
	return &Error{Kind: ErrAgentFailed, Code: code, Detail: detail}
}
