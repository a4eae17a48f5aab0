package sse

import "net/http"

// ResumeAfter reads where a follow request resumes: after the later of the
// query's "after" and the Last-Event-ID header. A reconnecting EventSource
// asks for its URL again, after included, with the id of the last event it
// received as Last-Event-ID, which is the newer of the two: resuming from
// the URL's after would send it the events it has again. A client that
// sends both on purpose is not sent what is before either.
//
// parse reads a cursor, false when it is not one; later reports whether a
// is after b. given is false when the request has neither (an empty value
// is none); ok is false when one of them is present and does not parse:
// the caller answers 400 then, the same for both.
func ResumeAfter[C any](r *http.Request, parse func(string) (C, bool), later func(a, b C) bool) (c C, given, ok bool) {
	for _, raw := range [2]string{r.URL.Query().Get("after"), r.Header.Get("Last-Event-ID")} {
		if raw == "" {
			continue
		}
		v, valid := parse(raw)
		if !valid {
			var zero C
			return zero, true, false
		}
		if !given || later(v, c) {
			c = v
		}
		given = true
	}
	return c, given, true
}
