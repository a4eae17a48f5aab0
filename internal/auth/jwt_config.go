package auth

import (
	"time"

	"github.com/harnest/harnest/config"
)

// JWTFromConfig builds the verifier of auth.jwt; nil (and no error) when
// the section is absent.
func JWTFromConfig(c *config.JWTAuth) (*JWT, error) {
	if c == nil {
		return nil, nil
	}
	cfg := JWTConfig{
		Issuer:     c.Issuer,
		Audience:   c.Audience,
		JWKSURL:    c.JWKSURL,
		AllowHosts: c.AllowHosts,
		UserClaim:  c.User(),
		OwnerClaim: c.OwnerClaim,
		OwnerValue: c.OwnerValue,
		Leeway:     time.Duration(c.Leeway()) * time.Second,
	}
	if c.HS256Secret != "" {
		cfg.HS256Secret = []byte(c.HS256Secret)
	}
	return NewJWT(cfg)
}
