package config

import (
	"fmt"
	"regexp"
)

// envRefPattern matches a scalar that is exactly one environment reference,
// "${NAME}" or "${NAME:-default}". Anything else, such as "$NAME" or
// "a${NAME}", is literal text.
var envRefPattern = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}$`)

// envReference is a parsed "${NAME}" or "${NAME:-default}".
type envReference struct {
	name       string
	fallback   string // the value when NAME is unset or empty
	hasDefault bool
}

// envRef parses s when it is exactly one environment reference.
func envRef(s string) (envReference, bool) {
	m := envRefPattern.FindStringSubmatch(s)
	if m == nil {
		return envReference{}, false
	}
	return envReference{name: m[1], fallback: m[3], hasDefault: m[2] != ""}, true
}

// unsetMessage says that a referenced variable is missing. It names the
// variable only, never a value.
func unsetMessage(name string) string {
	return fmt.Sprintf("environment variable %s is not set; export it before starting harnest, give a default as ${%s:-value}, or replace ${%s} with a value", name, name, name)
}
