package httpapi

import (
	"net/http"

	"github.com/harnest/harnest/internal/auth"
)

// UserHandler serves a request for user, the acting user (ActingUser).
type UserHandler func(w http.ResponseWriter, r *http.Request, user string)

// AsUser is h behind ActingUser: the caller's records, or with ?user= an
// owner's choice (isOwner). A caller who may not act for the named user
// gets 404 and h does not run.
func AsUser(isOwner func(string) bool, h UserHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user, ok := ActingUser(w, r, auth.From(r.Context()).UserID, isOwner)
		if !ok {
			return
		}
		h(w, r, user)
	}
}
