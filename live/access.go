package live

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/runtime"
)

// credential says how a handshake authenticated.
type credential int

const (
	credentialOK credential = iota
	credentialMissing
	credentialInvalid
)

// bearerPrefix marks a subprotocol that carries a bearer token: a browser
// cannot set headers on a WebSocket, so it offers ["harnest.live",
// "bearer.<token>"] and the server selects "harnest.live".
const bearerPrefix = "bearer."

// principal resolves the socket's user from the first credential present:
// an Authorization bearer header, a bearer subprotocol, then the
// harnest_token cookie. Without configured tokens every socket is
// anonymous.
func (h *Handler) principal(r *http.Request) (runtime.Principal, credential) {
	if h.auth == nil || !h.auth.Enabled() {
		return runtime.Anonymous, credentialOK
	}
	token, ok := presentedToken(r)
	if !ok {
		return runtime.Principal{}, credentialMissing
	}
	p, ok := h.auth.Resolve(token)
	if !ok {
		return runtime.Principal{}, credentialInvalid
	}
	return p, credentialOK
}

// presentedToken is the first bearer token the handshake carries.
func presentedToken(r *http.Request) (string, bool) {
	if token, ok := auth.BearerToken(r); ok {
		return token, true
	}
	for _, p := range websocket.Subprotocols(r) {
		if token, ok := strings.CutPrefix(p, bearerPrefix); ok && token != "" {
			return token, true
		}
	}
	if c, err := r.Cookie(TokenCookie); err == nil && c.Value != "" {
		return c.Value, true
	}
	return "", false
}

// originAllowed accepts a handshake without Origin (a program), from the
// server's own origin (the Origin's host equals Host), or from an origin
// listed in allowed (scheme://host[:port], case-insensitive; "*" is any).
func originAllowed(r *http.Request, allowed []string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	return false
}
