package config

// DefaultJWTLeewaySeconds is the clock skew allowed on a JWT's exp, nbf and
// iat when auth.jwt.leewaySeconds is not set.
const DefaultJWTLeewaySeconds = 60

// JWTUserPrefix starts the user ID of every caller who signed in with a
// JWT: a token whose user claim is "alice" is the user "jwt:alice". The
// users of auth.tokens are named in this file and never start with it
// (validation refuses that), so a JWT can never stand for a static
// token's user, or make one its owner, whatever its subject: the two
// sources have separate user IDs, now and after either is added later.
const JWTUserPrefix = "jwt:"

// JWTAuth is auth.jwt: bearer tokens that are JSON Web Tokens of an
// identity provider, accepted beside auth.tokens.
type JWTAuth struct {
	// Issuer must equal the token's iss when set.
	Issuer string `yaml:"issuer"`
	// Audience must be one of the token's aud when set.
	Audience string `yaml:"audience"`
	// JWKSURL is the provider's key set (RS256, ES256, EdDSA tokens),
	// fetched on first use and again for an unknown kid.
	JWKSURL string `yaml:"jwksURL"`
	// HS256Secret verifies HS256 tokens (at least 32 bytes); write it as
	// ${ENV}. Never logged or printed. Without it HS256 is refused.
	HS256Secret string `yaml:"hs256Secret"`
	// UserClaim is the claim that holds the user ID (default sub).
	UserClaim string `yaml:"userClaim"`
	// OwnerClaim and OwnerValue mark the agent's owners: the claim equals
	// OwnerValue or is a list holding it; with no OwnerValue the claim
	// must be true.
	OwnerClaim string `yaml:"ownerClaim"`
	OwnerValue string `yaml:"ownerValue"`
	// LeewaySeconds is the clock skew allowed on exp, nbf and iat, 0..600
	// (default 60; use Leeway).
	LeewaySeconds *int `yaml:"leewaySeconds"`
	// AllowHosts are private or loopback hosts (host or host:port) the
	// JWKS URL may point at; plain http only for loopback ones.
	AllowHosts []string `yaml:"allowHosts"`
}

// Leeway is the clock skew allowed, in seconds.
func (j JWTAuth) Leeway() int {
	if j.LeewaySeconds == nil {
		return DefaultJWTLeewaySeconds
	}
	return *j.LeewaySeconds
}

// User is the claim that holds the user ID.
func (j JWTAuth) User() string {
	if j.UserClaim == "" {
		return "sub"
	}
	return j.UserClaim
}
