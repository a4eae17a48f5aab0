// Package auth resolves every HTTP request to a principal before it touches
// state: bearer tokens from config mapped to users, JWTs of an identity
// provider (jwt.go) mapped to users of their own ("jwt:<sub>", never a
// static token's user), or the anonymous user when neither is configured. Every transport reads the principal with
// From; none checks credentials itself.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// Token is one configured bearer token and its user.
type Token struct {
	Token string
	User  string
}

// Authenticator checks bearer tokens in constant time, and JWTs when a
// verifier is given.
type Authenticator struct {
	tokens []hashedToken
	public func(*http.Request) bool
	jwt    *JWT // nil without auth.jwt
}

// Option adds to an Authenticator.
type Option func(*Authenticator)

// WithJWT accepts the JWTs j verifies beside the static tokens; nil adds
// nothing.
func WithJWT(j *JWT) Option { return func(a *Authenticator) { a.jwt = j } }

type hashedToken struct {
	sum  [32]byte
	user string
}

// New returns an Authenticator. With no tokens, every caller is anonymous.
// public reports requests that need no credentials (health, discovery, the
// playground shell).
func New(tokens []Token, public func(*http.Request) bool, opts ...Option) *Authenticator {
	a := &Authenticator{public: public}
	for _, o := range opts {
		o(a)
	}
	for _, t := range tokens {
		a.tokens = append(a.tokens, hashedToken{sum: sha256.Sum256([]byte(t.Token)), user: t.User})
	}
	return a
}

// Enabled reports whether tokens or JWTs are configured.
func (a *Authenticator) Enabled() bool { return len(a.tokens) > 0 || a.jwt != nil }

// IsOwner reports whether user, a JWT user, proved with a JWT's owner
// claim to be the agent's owner (owners of static tokens are the relay's
// to know; a static token's user is never a JWT user, see JWTUser).
func (a *Authenticator) IsOwner(user string) bool { return a.jwt != nil && a.jwt.IsOwner(user) }

// Resolve returns the principal for a bearer token; false when the token is
// unknown or refused.
func (a *Authenticator) Resolve(token string) (runtime.Principal, bool) {
	p, err := a.Check(context.Background(), token)
	return p, err == nil
}

// Check returns the principal for a bearer token: a configured token, or
// a JWT when a verifier is set. A refusal is a *TokenError whose text says
// why, for the caller.
func (a *Authenticator) Check(ctx context.Context, token string) (runtime.Principal, error) {
	if !a.Enabled() {
		return runtime.Anonymous, nil
	}
	if p, ok := a.static(token); ok {
		return p, nil
	}
	if a.jwt != nil && looksLikeJWT(token) {
		return a.jwt.Verify(ctx, token)
	}
	return runtime.Principal{}, errUnknownToken
}

// errUnknownToken is a token that is neither configured nor a JWT.
var errUnknownToken = &TokenError{Reason: "the bearer token is not one of the configured tokens"}

// static looks a token up among the configured ones. Every configured
// token is compared, so timing does not reveal which one matched or how
// much of it.
func (a *Authenticator) static(token string) (runtime.Principal, bool) {
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
			next.ServeHTTP(w, r.WithContext(withAnonymous(r.Context())))
			return
		}
		token, has := BearerToken(r)
		var p runtime.Principal
		err := error(errUnknownToken)
		if has {
			p, err = a.Check(r.Context(), token)
		}
		if err == nil {
			next.ServeHTTP(w, r.WithContext(With(r.Context(), p)))
			return
		}
		if a.public != nil && a.public(r) {
			next.ServeHTTP(w, r.WithContext(withAnonymous(r.Context())))
			return
		}
		// The 401 is written here, not with httpapi.Fail: httpapi imports
		// auth (its rate limit), so auth cannot import it.
		w.Header().Set("WWW-Authenticate", `Bearer realm="harnest"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		if has {
			detail := "The bearer token is not valid"
			if err != errUnknownToken {
				detail += ": " + err.Error()
			}
			body, _ := json.Marshal(map[string]string{"detail": detail, "code": "invalid_token"})
			_, _ = w.Write(body)
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

// anonymous is runtime.Anonymous as a context value, made once: every
// request of a server without auth carries it, and With would allocate
// the value's copy for each.
var anonymous any = runtime.Anonymous

// withAnonymous is With(ctx, runtime.Anonymous) with one allocation fewer.
func withAnonymous(ctx context.Context) context.Context {
	return context.WithValue(ctx, principalKey{}, anonymous)
}

// From returns the request's principal. A request that did not pass through
// the middleware has none: it is treated as no user at all, so it sees
// nothing.
func From(ctx context.Context) runtime.Principal {
	p, _ := ctx.Value(principalKey{}).(runtime.Principal)
	return p
}
