package chat

import (
	"context"
	"errors"
	"mime"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/harnest/harnest/runtime"
)

// errCallTimedOut is the cause of a call's context when its Timeout passed,
// to tell it from the caller's own cancellation or deadline.
var errCallTimedOut = errors.New("chat: the call's timeout passed")

// Complete makes one model call: it sends req, hands the text and reasoning
// deltas to h as they arrive and returns the assembled result.
//
// Errors are *runtime.Error values with the codes of this package (see
// CodeAuth and the others); when ctx ends first, its error (errors.Is
// context.Canceled or context.DeadlineExceeded); when a handler fails,
// that handler's error as is.
func (c *Client) Complete(ctx context.Context, req Request, h Handlers) (*Result, error) {
	body, err := c.requestBody(req)
	if err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithTimeoutCause(ctx, c.opts.Timeout, errCallTimedOut)
	defer cancel()
	if req.IdempotencyKey != "" {
		callCtx = context.WithValue(callCtx, idempotencyKey{}, req.IdempotencyKey)
	}
	a := newAssembly(h)
	if err := c.call(callCtx, body, a); err != nil {
		return nil, c.settle(ctx, callCtx, err)
	}
	return a.result(c), nil
}

// call sends the request (retrying what may be retried) and reads the
// answer into a.
func (c *Client) call(ctx context.Context, body []byte, a *assembly) error {
	resp, err := c.send(ctx, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
		return c.readCompletion(resp.Body, a)
	case mediaType == "text/event-stream" || mediaType == "" || mediaType == "text/plain":
		return c.readStream(resp.Body, a)
	}
	c.warn("the model endpoint answered with a body that is neither events nor JSON",
		"contentType", mediaType, "body", c.redactor.logText(resp.Body))
	return notCompletionError(mediaType)
}

// failure is why one attempt did not get a completion.
type failure struct {
	err    error
	retry  bool // worth another attempt
	status int  // the HTTP status, 0 when there was no answer
	// retryAfter is the wait the endpoint asked for, when hasRetryAfter.
	retryAfter    time.Duration
	hasRetryAfter bool
	refused       bool // nobody listens at the address
}

// maxRefusedAttempts bounds the attempts at an address where nobody
// listens: a local endpoint that is not started does not start within the
// timeout, and the caller should hear so in about a second.
const maxRefusedAttempts = 3

// send makes attempts until one gets a successful answer, one fails for
// good, or the next wait would not end within the timeout.
func (c *Client) send(ctx context.Context, body []byte) (*http.Response, error) {
	deadline, _ := ctx.Deadline()
	budget := &retryBudget{deadline: deadline, timeout: c.opts.Timeout}
	refused := 0
	for {
		resp, fail := c.attempt(ctx, body, budget.retries+1)
		if fail == nil {
			return resp, nil
		}
		if fail.refused {
			refused++
		}
		if !fail.retry || refused >= maxRefusedAttempts {
			return nil, fail.err
		}
		wait := backoff(budget.retries)
		if fail.hasRetryAfter {
			wait = max(wait, fail.retryAfter)
		}
		if !budget.grant(wait) {
			if fail.hasRetryAfter && fail.retryAfter == wait {
				return nil, c.waitTooLongError(fail.status, fail.retryAfter)
			}
			return nil, fail.err
		}
		if err := c.opts.Sleep(ctx, wait); err != nil {
			return nil, &ioError{err}
		}
	}
}

// attempt sends the request once. A successful answer is returned with
// its body unread; an error answer is logged (redacted) and closed.
func (c *Client) attempt(ctx context.Context, body []byte, n int) (*http.Response, *failure) {
	req, err := c.newHTTPRequest(ctx, body)
	if err != nil {
		return nil, &failure{err: err}
	}
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, c.connectFailure(ctx, err, n)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	text := c.redactor.logText(resp.Body)
	resp.Body.Close()
	c.warn("the model endpoint answered with an error", "status", resp.StatusCode, "attempt", n, "body", text)
	f := &failure{err: c.statusError(resp.StatusCode), retry: retryable(resp.StatusCode), status: resp.StatusCode}
	f.retryAfter, f.hasRetryAfter = retryAfter(resp.Header, time.Now())
	return nil, f
}

// connectFailure classifies an attempt that got no answer. A refused
// connection is retried; the call's own timeout and the caller's
// cancellation are settled by Complete.
func (c *Client) connectFailure(ctx context.Context, err error, n int) *failure {
	if ctx.Err() != nil {
		return &failure{err: &ioError{err}}
	}
	c.warn("the model endpoint could not be reached", "attempt", n, "error", c.redactor.redact(err.Error()))
	var opErr *net.OpError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &failure{err: c.refusedError(), retry: true, refused: true}
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return &failure{err: c.unreachableError()}
	case errors.As(err, &netErr) && netErr.Timeout(): // the HTTP client's own timeout
		return &failure{err: c.timeoutError()}
	}
	return &failure{err: c.unreachableError()}
}

// settle turns what stopped a call into the error Complete returns.
func (c *Client) settle(ctx, callCtx context.Context, err error) error {
	var handlerErr *handlerError
	if errors.As(err, &handlerErr) {
		return handlerErr.err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var runtimeErr *runtime.Error
	if errors.As(err, &runtimeErr) {
		return runtimeErr
	}
	var readErr *ioError
	if !errors.As(err, &readErr) {
		return err
	}
	var netErr net.Error
	if errors.Is(context.Cause(callCtx), errCallTimedOut) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return c.timeoutError()
	}
	c.warn("the model endpoint's stream broke off", "error", c.redactor.redact(err.Error()))
	return brokenStreamError()
}

// warn logs what the endpoint did, with the provider and model.
func (c *Client) warn(msg string, args ...any) {
	c.opts.Logger.Warn(msg, append([]any{"provider", c.provider, "model", c.opts.Model}, args...)...)
}
