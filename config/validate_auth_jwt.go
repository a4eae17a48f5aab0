package config

import (
	"net/url"
	"strings"

	"github.com/harnest/harnest/internal/netguard"
)

// minHS256SecretBytes is the shortest HS256 secret accepted: the hash's
// size, as RFC 7518 asks.
const minHS256SecretBytes = 32

// maxJWTLeewaySeconds bounds auth.jwt.leewaySeconds.
const maxJWTLeewaySeconds = 600

// authJWT checks auth.jwt. No message shows the HS256 secret.
func (v *validator) authJWT(j *JWTAuth) {
	if j == nil {
		return
	}
	const at = "auth.jwt"
	if j.JWKSURL == "" && j.HS256Secret == "" {
		v.problem(at, "set jwksURL (the identity provider's key set) or hs256Secret (${ENV}) to verify tokens")
	}
	if j.JWKSURL != "" {
		v.jwksURL(j)
	}
	if j.HS256Secret != "" && len(j.HS256Secret) < minHS256SecretBytes {
		v.problem(at+".hs256Secret", "is too short: use at least %d bytes (for example `openssl rand -base64 48`)", minHS256SecretBytes)
	}
	if j.OwnerValue != "" && j.OwnerClaim == "" {
		v.problem(at+".ownerValue", "needs ownerClaim, the claim it is compared with")
	}
	if j.LeewaySeconds != nil && (*j.LeewaySeconds < 0 || *j.LeewaySeconds > maxJWTLeewaySeconds) {
		v.problem(at+".leewaySeconds", "must be between 0 and %d (default %d)", maxJWTLeewaySeconds, DefaultJWTLeewaySeconds)
	}
	for i, h := range j.AllowHosts {
		if h == "" || strings.ContainsAny(h, "/ ") {
			v.problem(indexPath(at+".allowHosts", i), "must be a host or host:port, such as 127.0.0.1:8443 or idp.internal")
		}
	}
}

// jwksURL checks auth.jwt.jwksURL with the same guard the fetch uses.
func (v *validator) jwksURL(j *JWTAuth) {
	const path = "auth.jwt.jwksURL"
	u, err := url.Parse(j.JWKSURL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		v.problem(path, "must be an absolute https URL such as https://idp.example.com/.well-known/jwks.json, got %s", v.show(path, j.JWKSURL))
		return
	case u.User != nil:
		v.problem(path, "must not hold credentials")
		return
	}
	policy := netguard.Policy{AllowHosts: j.AllowHosts, AllowHTTPLoopback: true}
	if err := policy.CheckURL(u); err != nil {
		v.problem(path, "is refused (%s); list a private or loopback host in auth.jwt.allowHosts", strings.TrimPrefix(err.Error(), "netguard: "))
	}
}
