// Package jsonpost is the small HTTP client of harnest's own calls to
// OpenAI-compatible endpoints (the eval judge, the memory embedder): one
// POST of a JSON body, with a bearer key when there is one, and its
// answer read up to a bound. A failure says at which step it happened, so
// that each caller words it for its user.
package jsonpost

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// Step is where a call failed.
type Step int

const (
	// Build: the request could not be made (a URL that does not parse).
	Build Step = iota
	// Send: the endpoint did not answer.
	Send
	// Read: its answer could not be read to the end.
	Read
)

// Error is a failed call: the step and the cause.
type Error struct {
	Step Step
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }

// Answer is what the endpoint answered: its status code, its status line
// ("200 OK") and its body, at most the bound.
type Answer struct {
	StatusCode int
	Status     string
	Body       []byte
}

// Post sends body (JSON) to url with client, with "Authorization: Bearer
// key" when key is not "", and reads at most max bytes of the answer.
// An error is an *Error.
func Post(ctx context.Context, client *http.Client, url, key string, body []byte, max int64) (Answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Answer{}, &Error{Step: Build, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return Answer{}, &Error{Step: Send, Err: err}
	}
	defer resp.Body.Close()
	a := Answer{StatusCode: resp.StatusCode, Status: resp.Status}
	if a.Body, err = io.ReadAll(io.LimitReader(resp.Body, max)); err != nil {
		return a, &Error{Step: Read, Err: err}
	}
	return a, nil
}

// StepOf is the step at which err (from Post) happened.
func StepOf(err error) Step {
	if e, ok := err.(*Error); ok {
		return e.Step
	}
	return Build
}
