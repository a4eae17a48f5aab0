package chat

import (
	"net/http"
	"strconv"
	"time"

	"github.com/harnest/harnest/runtime"
)

// The codes of the errors Complete returns, all of kind
// runtime.ErrAgentUnavailable (their code and sentence reach the receipt
// and the caller).
const (
	// CodeAuth: the endpoint refused the key (HTTP 401 or 403).
	CodeAuth = "model_auth"
	// CodeRateLimited: HTTP 429, still after the retries the timeout
	// allowed.
	CodeRateLimited = "model_rate_limited"
	// CodeUnavailable: HTTP 5xx after retries, 404, or no connection.
	CodeUnavailable = "model_unavailable"
	// CodeTimeout: the call's timeout passed, a slow stream included.
	CodeTimeout = "model_timeout"
	// CodeBadResponse: an answer that is not a completion (malformed JSON,
	// a body that is neither events nor JSON, a stream cut short) or
	// another HTTP 4xx.
	CodeBadResponse = "model_bad_response"
)

// modelError is an error of the model endpoint for the caller.
func modelError(code, format string, args ...any) *runtime.Error {
	return runtime.Errorf(runtime.ErrAgentUnavailable, code, format, args...)
}

// seconds writes d for a sentence: "120 s", "1.5 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// authError is the sentence for HTTP 401 and 403.
func (c *Client) authError(status int) *runtime.Error {
	if c.opts.APIKey == "" {
		return modelError(CodeAuth, "The model endpoint requires an API key (HTTP %d); set spec.backend.model.apiKey.", status)
	}
	return modelError(CodeAuth, "The model endpoint refused the API key (HTTP %d); check spec.backend.model.apiKey.", status)
}

// statusError is the error for a final answer of status (after the
// retries the timeout allowed, for those that are retried).
func (c *Client) statusError(status int) *runtime.Error {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return c.authError(status)
	case status == http.StatusTooManyRequests:
		return modelError(CodeRateLimited, "The model endpoint kept refusing with HTTP 429 (too many requests) within the call's %s; try again later, or raise spec.backend.model.timeoutSeconds.", seconds(c.opts.Timeout))
	case status == http.StatusNotFound:
		return modelError(CodeUnavailable, "The model endpoint answered HTTP 404 (not found); check spec.backend.model.baseUrl (OpenAI-compatible servers usually end it in /v1) and that the model %q exists there.", c.opts.Model)
	case status >= 500:
		return modelError(CodeUnavailable, "The model endpoint failed with HTTP %d on every attempt within the call's %s; check that it is running and healthy, then try again.", status, seconds(c.opts.Timeout))
	case status >= 400:
		return modelError(CodeBadResponse, "The model endpoint rejected the request (HTTP %d); the server log has the endpoint's reason.", status)
	}
	return modelError(CodeBadResponse, "The model endpoint answered HTTP %d, which is not a completion; check spec.backend.model.baseUrl.", status)
}

// waitTooLongError is the error when the endpoint asks to wait past the
// call's timeout.
func (c *Client) waitTooLongError(status int, wait time.Duration) *runtime.Error {
	asked, timeout := seconds(wait.Round(time.Second)), seconds(c.opts.Timeout)
	var err *runtime.Error
	if status == http.StatusTooManyRequests {
		err = modelError(CodeRateLimited, "The model endpoint is rate limiting requests (HTTP 429) and asked to wait %s, past the call's %s; try again later.", asked, timeout)
	} else {
		err = modelError(CodeUnavailable, "The model endpoint is unavailable (HTTP %d) and asked to wait %s, past the call's %s; try again later.", status, asked, timeout)
	}
	err.RetryAfter = wait
	return err
}

// timeoutError is the error when the call's timeout passed.
func (c *Client) timeoutError() *runtime.Error {
	return modelError(CodeTimeout, "The model endpoint did not finish within %s (spec.backend.model.timeoutSeconds); try again, or raise the timeout for a slow model.", seconds(c.opts.Timeout))
}

// refusedError is the error when nothing listens at the endpoint.
func (c *Client) refusedError() *runtime.Error {
	return modelError(CodeUnavailable, "The model endpoint at %s refused the connection; check that it is running and that spec.backend.model.baseUrl is right.", c.hostPort)
}

// unreachableError is the error for other connection failures (name
// resolution, TLS, a reset).
func (c *Client) unreachableError() *runtime.Error {
	return modelError(CodeUnavailable, "The model endpoint at %s could not be reached; check spec.backend.model.baseUrl and the network (the server log has the cause).", c.hostPort)
}

// brokenStreamError is the error when the stream broke off midway.
func brokenStreamError() *runtime.Error {
	return modelError(CodeBadResponse, "The model endpoint's stream broke off before the completion ended; try again.")
}

// truncatedStreamError is the error when the stream ended without [DONE]
// and without a finish reason.
func truncatedStreamError() *runtime.Error {
	return modelError(CodeBadResponse, "The model endpoint's stream ended before the completion did (no finish reason and no [DONE]); try again.")
}

// malformedError is the error for a chunk or body that is not the JSON of
// a completion.
func malformedError() *runtime.Error {
	return modelError(CodeBadResponse, "The model endpoint sent a chunk that is not valid Chat Completions JSON; the server log has it. Check that spec.backend.model.baseUrl is an OpenAI-compatible endpoint.")
}

// reportedError is the error when the endpoint sent an error object
// instead of a completion.
func reportedError() *runtime.Error {
	return modelError(CodeUnavailable, "The model endpoint reported an error instead of a completion; the server log has its reason. Try again later.")
}

// notCompletionError is the error for a body of the wrong media type.
func notCompletionError(mediaType string) *runtime.Error {
	return modelError(CodeBadResponse, "The model endpoint answered with %s, neither an event stream nor JSON; check spec.backend.model.baseUrl.", strconv.Quote(mediaType))
}
