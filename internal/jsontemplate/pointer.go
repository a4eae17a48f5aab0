package jsontemplate

import (
	"fmt"
	"strconv"
	"strings"
)

// Pointer is a parsed JSON pointer: its reference tokens, unescaped. The
// empty pointer (no tokens) is the whole document.
type Pointer struct {
	text   string
	tokens []string
}

// ParsePointer parses a JSON pointer: "" or "/" followed by tokens
// separated by "/", with "~1" for "/" and "~0" for "~".
func ParsePointer(s string) (Pointer, error) {
	if s == "" {
		return Pointer{}, nil
	}
	if !strings.HasPrefix(s, "/") {
		return Pointer{}, fmt.Errorf("JSON pointer %q must start with /", s)
	}
	parts := strings.Split(s[1:], "/")
	for i, p := range parts {
		for j := 0; j < len(p); j++ {
			if p[j] == '~' && (j+1 == len(p) || (p[j+1] != '0' && p[j+1] != '1')) {
				return Pointer{}, fmt.Errorf("JSON pointer %q: ~ must be followed by 0 or 1", s)
			}
		}
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
	}
	return Pointer{text: s, tokens: parts}, nil
}

// String is the pointer as written.
func (p Pointer) String() string { return p.text }

// Lookup finds the value p points at in doc, a document decoded by
// encoding/json into any (objects map[string]any, arrays []any).
func (p Pointer) Lookup(doc any) (any, bool) {
	v := doc
	for _, tok := range p.tokens {
		switch c := v.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}
