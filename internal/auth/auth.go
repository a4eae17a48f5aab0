// Package auth resolves every HTTP request to a principal before it touches
// state: bearer tokens from config mapped to users, or the anonymous user
// when no tokens are configured. Every transport reads the principal with
// From; none checks credentials itself.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// Token is one configured bearer token and its user.
type Token struct {
	Token string
	User  string
}

// Authenticator checks bearer tokens in constant time.
type Authenticator struct {
	tokens []hashedToken
	public func(*http.Request) bool
}

type hashedToken struct {
	sum  [32]byte
	user string
}

// New returns an Authenticator. With no tokens, every caller is anonymous.
// public reports requests that need no credentials (health, discovery, the
// playground shell).
func New(tokens []Token, public func(*http.Request) bool) *Authenticator {
	a := &Authenticator{public: public}
	for _, t := range tokens {
		a.tokens = append(a.tokens, hashedToken{sum: sha256.Sum256([]byte(t.Token)), user: t.User})
	}
	return a
}

// Enabled reports whether tokens are configured.
func (a *Authenticator) Enabled() bool { return len(a.tokens) > 0 }

// Resolve returns the principal for a bearer token; false when the token is
// unknown. Every configured token is compared, so timing does not reveal
// which one matched or how much of it.
func (a *Authenticator) Resolve(token string) (runtime.Principal, bool) {
	if !a.Enabled() {
		return runtime.Anonymous, true
	}
	sum := sha256.Sum256([]byte(token))
	user := ""
	for _, t := range a.tokens {
		if subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1 {
			user = t.user
		}
	}
	return runtime.Principal{UserID: user}, user != ""
}

// BearerToken extracts the token of an "Authorization: Bearer" header.
func BearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// Middleware puts the caller's principal in the request context, or answers
// 401 when credentials are required and missing or wrong. Public requests
// pass through with the anonymous principal unless they carry a valid token.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.Enabled() {
			next.ServeHTTP(w, r.WithContext(With(r.Context(), runtime.Anonymous)))
			return
		}
		token, has := BearerToken(r)
		p, ok := a.Resolve(token)
		if has && ok {
			next.ServeHTTP(w, r.WithContext(With(r.Context(), p)))
			return
		}
		if a.public != nil && a.public(r) {
			next.ServeHTTP(w, r.WithContext(With(r.Context(), runtime.Anonymous)))
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="harnest"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		if has {
			_, _ = w.Write([]byte(`{"detail":"The bearer token is not valid","code":"invalid_token"}`))
			return
		}
		_, _ = w.Write([]byte(`{"detail":"Authentication required: send Authorization: Bearer <token>","code":"unauthorized"}`))
	})
}

type principalKey struct{}

// With returns ctx carrying the principal.
func With(ctx context.Context, p runtime.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// From returns the request's principal. A request that did not pass through
// the middleware has none: it is treated as no user at all, so it sees
// nothing.
func From(ctx context.Context) runtime.Principal {
	p, _ := ctx.Value(principalKey{}).(runtime.Principal)
	return p
}
