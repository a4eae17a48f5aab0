package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/netguard"
	"github.com/harnest/harnest/runtime"
)

// JWTConfig says which JSON Web Tokens of an identity provider are
// accepted as bearer tokens.
type JWTConfig struct {
	// Issuer and Audience must equal the token's iss and be one of its
	// aud when set.
	Issuer   string
	Audience string
	// JWKSURL is the provider's key set, for RS256, ES256 and EdDSA
	// tokens. It is fetched through netguard: https to public hosts, or a
	// host of AllowHosts (plain http only when that host is loopback).
	JWKSURL    string
	AllowHosts []string
	// HS256Secret, when set, verifies HS256 tokens; without it HS256 is
	// refused.
	HS256Secret []byte
	// UserClaim is the claim holding the user ID (default "sub").
	UserClaim string
	// OwnerClaim and OwnerValue make a user the agent's owner: the claim
	// equals OwnerValue or is a list holding it (with OwnerValue empty,
	// the claim must be true).
	OwnerClaim string
	OwnerValue string
	// Leeway is the clock skew allowed on exp, nbf and iat.
	Leeway time.Duration
	// RefreshInterval is the least time between two fetches of the JWKS
	// (default DefaultJWKSRefreshInterval); MaxAge is how long a fetched
	// JWKS is used before it is fetched again (default DefaultJWKSMaxAge).
	RefreshInterval time.Duration
	MaxAge          time.Duration
	// Now is the clock (default time.Now); tests move it.
	Now func() time.Time
}

// DefaultJWKSRefreshInterval is the least time between two JWKS fetches.
const DefaultJWKSRefreshInterval = 30 * time.Second

// DefaultJWKSMaxAge is how long a fetched JWKS is used before a token makes
// it fetched again.
const DefaultJWKSMaxAge = 15 * time.Minute

// JWT verifies tokens of one identity provider. One JWT can serve several
// Authenticators: they share its key set and its record of owners.
type JWT struct {
	cfg    JWTConfig
	keys   *keySet // nil without a JWKS URL
	owners *ownerRecord
}

// NewJWT checks the settings and returns a verifier. The JWKS is fetched
// when the first token needs it, so the server starts while the provider
// is unreachable.
func NewJWT(cfg JWTConfig) (*JWT, error) {
	if cfg.JWKSURL == "" && len(cfg.HS256Secret) == 0 {
		return nil, errors.New("auth: a JWT verifier needs a JWKS URL or an HS256 secret")
	}
	if cfg.UserClaim == "" {
		cfg.UserClaim = "sub"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RefreshInterval <= 0 {
		cfg.RefreshInterval = DefaultJWKSRefreshInterval
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultJWKSMaxAge
	}
	j := &JWT{cfg: cfg, owners: newOwnerRecord(cfg.Now)}
	if cfg.JWKSURL != "" {
		u, err := url.Parse(cfg.JWKSURL)
		if err != nil {
			return nil, fmt.Errorf("auth: the JWKS URL is not a URL: %w", err)
		}
		policy := netguard.Policy{AllowHosts: cfg.AllowHosts, AllowHTTPLoopback: true}
		if err := policy.CheckURL(u); err != nil {
			return nil, fmt.Errorf("auth: the JWKS URL is refused: %w", err)
		}
		j.keys = &keySet{url: cfg.JWKSURL, client: netguard.Client(policy, jwksTimeout),
			minInterval: cfg.RefreshInterval, maxAge: cfg.MaxAge, now: cfg.Now}
	}
	return j, nil
}

// TokenError is why a bearer token was refused, as a sentence for the
// caller.
type TokenError struct {
	Reason string
}

func (e *TokenError) Error() string { return e.Reason }

func tokenErrorf(format string, args ...any) error {
	return &TokenError{Reason: fmt.Sprintf(format, args...)}
}

// looksLikeJWT reports a compact JWS: three base64url parts.
func looksLikeJWT(token string) bool {
	return strings.Count(token, ".") == 2
}

// Verify checks a token's signature and claims and returns its principal,
// or a *TokenError saying why it is refused.
func (j *JWT) Verify(ctx context.Context, token string) (runtime.Principal, error) {
	msg, err := jws.Parse([]byte(token))
	if err != nil || len(msg.Signatures()) != 1 {
		return runtime.Principal{}, tokenErrorf("the bearer token is neither a configured token nor a signed JWT")
	}
	headers := msg.Signatures()[0].ProtectedHeaders()
	alg, _ := headers.Algorithm()
	kid, _ := headers.KeyID()
	key, err := j.key(ctx, alg, kid)
	if err != nil {
		return runtime.Principal{}, err
	}
	opts := []jwt.ParseOption{
		jwt.WithKey(alg, key), jwt.WithValidate(true), jwt.WithAcceptableSkew(j.cfg.Leeway),
		jwt.WithClock(jwt.ClockFunc(j.cfg.Now)), jwt.WithRequiredClaim("exp"),
	}
	if j.cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(j.cfg.Issuer))
	}
	if j.cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(j.cfg.Audience))
	}
	tok, err := jwt.Parse([]byte(token), opts...)
	if err != nil {
		return runtime.Principal{}, refusal(err)
	}
	return j.principal(tok)
}

// key returns the key that verifies a token signed with alg: the HS256
// secret, or the JWKS key named kid.
func (j *JWT) key(ctx context.Context, alg jwa.SignatureAlgorithm, kid string) (any, error) {
	switch alg {
	case jwa.HS256():
		if len(j.cfg.HS256Secret) == 0 {
			return nil, tokenErrorf("HS256 tokens are refused: no auth.jwt.hs256Secret is configured, only the keys of the JWKS are trusted")
		}
		return j.cfg.HS256Secret, nil
	case jwa.RS256(), jwa.ES256(), jwa.EdDSA():
	default:
		return nil, tokenErrorf("the token's algorithm %q is not accepted; use RS256, ES256, EdDSA or HS256", shortAlg(alg))
	}
	if j.keys == nil {
		return nil, tokenErrorf("%s tokens are refused: no auth.jwt.jwksURL is configured", alg)
	}
	key, err := j.keys.lookup(ctx, kid)
	if err != nil {
		return nil, err
	}
	if ka, ok := key.Algorithm(); ok && ka.String() != alg.String() {
		return nil, tokenErrorf("the token says %s but its JWKS key is for %s", alg, ka)
	}
	if use, ok := key.KeyUsage(); ok && use != "sig" {
		return nil, tokenErrorf("the token's JWKS key is not a signing key (use %q)", use)
	}
	return key, nil
}

// shortAlg is an algorithm name fit for a message.
func shortAlg(alg jwa.SignatureAlgorithm) string {
	s := alg.String()
	if len(s) > 20 {
		s = s[:20]
	}
	return s
}

// refusals are the sentences of the parse and validation errors, looked
// up in order.
var refusals = []struct {
	kind     error
	sentence string
}{
	{jwt.TokenExpiredError(), "the token has expired (exp is in the past, beyond the allowed clock skew); sign in again"},
	{jwt.TokenNotYetValidError(), "the token is not valid yet (nbf is in the future, beyond the allowed clock skew)"},
	{jwt.InvalidIssuedAtError(), "the token was issued in the future (iat, beyond the allowed clock skew); check the clocks"},
	{jwt.InvalidIssuerError(), "the token's issuer (iss) is not the configured auth.jwt.issuer"},
	{jwt.InvalidAudienceError(), "the token's audience (aud) does not include the configured auth.jwt.audience"},
	{jwt.MissingRequiredClaimError(), "the token has no exp claim; tokens that never expire are refused"},
	{jws.VerifyError(), "the token's signature does not verify with the identity provider's key"},
	{jws.VerificationError(), "the token's signature does not verify with the identity provider's key"},
}

// refusal turns a parse or validation error into a sentence.
func refusal(err error) error {
	for _, r := range refusals {
		if errors.Is(err, r.kind) {
			return tokenErrorf("%s", r.sentence)
		}
	}
	return tokenErrorf("the token is not a valid JWT: its signature or claims could not be checked")
}

// principal reads the user, and the owner claim, of a verified token. The
// user ID is the claim under JWTUserPrefix ("jwt:alice"), so that no JWT
// stands for a user of a static token (whose IDs never have the prefix)
// whatever its subject, nor for the anonymous user.
func (j *JWT) principal(tok jwt.Token) (runtime.Principal, error) {
	var claim string
	if err := tok.Get(j.cfg.UserClaim, &claim); err != nil || claim == "" {
		return runtime.Principal{}, tokenErrorf("the token has no %s claim holding the user ID as a non-empty string", j.cfg.UserClaim)
	}
	if len(claim) > 256 {
		return runtime.Principal{}, tokenErrorf("the token's %s claim is not a usable user ID: it is longer than 256 bytes", j.cfg.UserClaim)
	}
	user := JWTUser(claim)
	exp, _ := tok.Expiration()
	j.owners.note(user, j.isOwnerClaim(tok), exp)
	return runtime.Principal{UserID: user}, nil
}

// JWTUser is the user ID of a JWT whose user claim is claim.
func JWTUser(claim string) string { return config.JWTUserPrefix + claim }

// IsJWTUser reports whether a user ID is that of a JWT's caller: only
// those can be made owners by a JWT's owner claim, and none of them by a
// static token's owner: true.
func IsJWTUser(userID string) bool { return strings.HasPrefix(userID, config.JWTUserPrefix) }
