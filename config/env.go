package config

import (
	"fmt"
	"regexp"
)

// envRefPattern matches a scalar that is exactly one environment reference.
// Anything else, such as "$NAME" or "a${NAME}", is literal text.
var envRefPattern = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// envRef returns the variable name when s is exactly "${NAME}".
func envRef(s string) (string, bool) {
	m := envRefPattern.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// unsetMessage says that a referenced variable is missing. It names the
// variable only, never a value.
func unsetMessage(name string) string {
	return fmt.Sprintf("environment variable %s is not set; export it before starting harnest or replace ${%s} with a value", name, name)
}
