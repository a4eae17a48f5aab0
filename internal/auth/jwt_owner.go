package auth

import (
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwt"
)

// isOwnerClaim reports whether a verified token carries the configured
// owner claim: equal to OwnerValue, a list holding it, or true when
// OwnerValue is empty.
func (j *JWT) isOwnerClaim(tok jwt.Token) bool {
	if j.cfg.OwnerClaim == "" {
		return false
	}
	var v any
	if err := tok.Get(j.cfg.OwnerClaim, &v); err != nil {
		return false
	}
	return ownerValueMatches(v, j.cfg.OwnerValue)
}

// ownerValueMatches compares a claim's JSON value with the owner value.
func ownerValueMatches(v any, want string) bool {
	switch c := v.(type) {
	case bool:
		return want == "" && c
	case string:
		return want != "" && c == want
	case []any:
		for _, e := range c {
			if s, ok := e.(string); ok && want != "" && s == want {
				return true
			}
		}
	case []string:
		for _, s := range c {
			if want != "" && s == want {
				return true
			}
		}
	}
	return false
}

// ownerRecord remembers which users proved to be owners with a JWT, until
// that token expires: owner checks (relay.IsOwner) are asked with a user
// ID, often outside the request that carried the token. A user's next
// token without the owner claim ends it at once. Only owners are kept, so
// the record stays as small as the set of owners.
type ownerRecord struct {
	now   func() time.Time
	mu    sync.Mutex
	until map[string]time.Time
}

func newOwnerRecord(now func() time.Time) *ownerRecord {
	return &ownerRecord{now: now, until: map[string]time.Time{}}
}

// note records what a verified token says of its user.
func (o *ownerRecord) note(user string, owner bool, exp time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !owner {
		delete(o.until, user)
		return
	}
	if exp.After(o.until[user]) {
		o.until[user] = exp
	}
}

// is reports whether user presented an owner token that has not expired.
func (o *ownerRecord) is(user string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	until, ok := o.until[user]
	if ok && !o.now().Before(until) {
		delete(o.until, user)
		return false
	}
	return ok
}

// IsOwner reports whether user, a JWT user ("jwt:<claim>"), presented a
// token with the owner claim that has not expired yet. Any other user ID
// is not this verifier's to make an owner.
func (j *JWT) IsOwner(user string) bool { return IsJWTUser(user) && j.owners.is(user) }
