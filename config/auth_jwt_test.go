package config

import (
	"strings"
	"testing"
)

func TestAuthJWTLoads(t *testing.T) {
	cfg := minimalConfig + `auth:
  jwt:
    issuer: https://idp.example.com/
    audience: harnest
    jwksURL: https://idp.example.com/.well-known/jwks.json
    hs256Secret: ${JWT_SECRET}
    ownerClaim: roles
    ownerValue: harnest-owner
`
	secret := strings.Repeat("s", 40)
	f := mustLoad(t, writeFolder(t, cfg, minimalCard, minimalInstructions), map[string]string{"JWT_SECRET": secret})
	j := f.Config.Auth.JWT
	if j == nil || j.Issuer != "https://idp.example.com/" || j.HS256Secret != secret || j.OwnerValue != "harnest-owner" {
		t.Fatalf("auth.jwt = %+v", j)
	}
	if j.User() != "sub" || j.Leeway() != DefaultJWTLeewaySeconds {
		t.Errorf("defaults: user claim %q, leeway %d", j.User(), j.Leeway())
	}
}

func TestAuthJWTLoopbackJWKSNeedsAllowHosts(t *testing.T) {
	cfg := minimalConfig + `auth:
  jwt:
    jwksURL: http://127.0.0.1:8080/jwks.json
    leewaySeconds: 0
    allowHosts: ["127.0.0.1:8080"]
`
	f := mustLoad(t, writeFolder(t, cfg, minimalCard, minimalInstructions), nil)
	if f.Config.Auth.JWT.Leeway() != 0 {
		t.Errorf("leewaySeconds: 0 read as %d", f.Config.Auth.JWT.Leeway())
	}
}

func TestAuthJWTProblems(t *testing.T) {
	tests := []struct {
		name, section string
		parts         []string
	}{
		{"no key", "    issuer: https://idp\n", []string{"auth.jwt", "set jwksURL"}},
		{"loopback unlisted", "    jwksURL: https://127.0.0.1/jwks\n", []string{"auth.jwt.jwksURL", "allowHosts"}},
		{"plain http public", "    jwksURL: http://idp.example.com/jwks\n", []string{"auth.jwt.jwksURL", "https"}},
		{"not a URL", "    jwksURL: idp.example.com\n", []string{"auth.jwt.jwksURL", "absolute https URL"}},
		{"short secret", "    hs256Secret: ${S}\n", []string{"auth.jwt.hs256Secret", "at least 32 bytes"}},
		{"owner value alone", "    hs256Secret: ${L}\n    ownerValue: admin\n", []string{"auth.jwt.ownerValue", "ownerClaim"}},
		{"leeway", "    hs256Secret: ${L}\n    leewaySeconds: 601\n", []string{"auth.jwt.leewaySeconds", "between 0 and 600"}},
		{"bad host", "    hs256Secret: ${L}\n    allowHosts: [\"a/b\"]\n", []string{"auth.jwt.allowHosts[0]"}},
	}
	env := map[string]string{"S": "short-secret-value", "L": strings.Repeat("l", 32)}
	for _, tt := range tests {
		probs := mustProblems(t, writeFolder(t, minimalConfig+"auth:\n  jwt:\n"+tt.section, minimalCard, minimalInstructions), env)
		if !hasLine(probs, tt.parts...) {
			t.Errorf("%s: no line with %q in\n%v", tt.name, tt.parts, probs)
		}
		if strings.Contains(probs.Error(), "short-secret-value") {
			t.Errorf("%s: the secret is shown: %v", tt.name, probs)
		}
	}
}
