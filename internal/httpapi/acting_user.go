package httpapi

import "net/http"

// ActingUser is whose records a request reaches on a route that serves a
// user their own and lets the agent's owners act for anyone (schedules,
// memory): the caller's, or, with ?user=, the user an owner names. A
// caller who is not an owner and names someone else gets 404, as for
// anything they may not see, and ok is false: the answer is written.
func ActingUser(w http.ResponseWriter, r *http.Request, caller string, isOwner func(string) bool) (user string, ok bool) {
	q := r.URL.Query()
	named := q.Get("user")
	if !q.Has("user") || named == caller {
		return caller, true
	}
	if named == "" || isOwner == nil || !isOwner(caller) {
		Fail(NoStore(w), http.StatusNotFound, "not_found", "Only the agent's owners may name a user")
		return "", false
	}
	return named, true
}
