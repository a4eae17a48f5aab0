package alive

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExtensionURI is the NetShow "alive" agent card extension.
const ExtensionURI = "https://netshow.ai/a2a/ext/alive/v1"

// MaxDisplayName is the longest display name, in characters.
const MaxDisplayName = 60

// Look is what a valid extension shows: a house look, its colors and a
// display name. Any field may be empty when neither the params nor the
// .alive.json file gave it.
type Look struct {
	Look        string // one of the house looks
	Line        string // the line color, #rgb or #rrggbb
	Background  string // the background color, #rgb or #rrggbb
	DisplayName string // plain text, at most MaxDisplayName characters
}

// IsZero reports a look with nothing in it.
func (l Look) IsZero() bool { return l == Look{} }

// orElse fills l's empty fields from other.
func (l Look) orElse(other Look) Look {
	if l.Look == "" {
		l.Look = other.Look
	}
	if l.Line == "" {
		l.Line = other.Line
	}
	if l.Background == "" {
		l.Background = other.Background
	}
	if l.DisplayName == "" {
		l.DisplayName = other.DisplayName
	}
	return l
}

// houseLooks are NetShow's house looks: characters, never a human face.
var houseLooks = map[string]bool{
	"pip": true, "robo": true, "byte": true, "owl": true, "cat": true, "fox": true, "drake": true, "momo": true,
	"scout": true, "dots-purple": true, "dots-yellow": true, "dots-blue": true, "dots-green": true,
	"pollen": true, "grok": true, "jolly": true,
}

// IsHouseLook reports whether name is one of the house looks.
func IsHouseLook(name string) bool { return houseLooks[name] }

var colorPattern = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// lookFields checks look, colors and the name field (nameKey) of a params
// map or an .alive.json file, and returns them; where prefixes the field
// names in errors.
func lookFields(m map[string]any, nameKey, where string) (Look, error) {
	var l Look
	if v, ok := m["look"]; ok {
		s, isString := v.(string)
		if !isString || !houseLooks[s] {
			return Look{}, fmt.Errorf("%slook must be one of the house looks (pip, robo, byte, owl, cat, fox, drake, momo, scout, dots-purple, dots-yellow, dots-blue, dots-green, pollen, grok, jolly)", where)
		}
		l.Look = s
	}
	if v, ok := m["colors"]; ok {
		colors, isMap := v.(map[string]any)
		if !isMap {
			return Look{}, fmt.Errorf("%scolors must be a mapping with line and background", where)
		}
		for k, c := range colors {
			if k != "line" && k != "background" {
				return Look{}, fmt.Errorf("%scolors.%s is not a color (line, background)", where, clip(k))
			}
			s, isString := c.(string)
			if !isString || !colorPattern.MatchString(s) {
				return Look{}, fmt.Errorf("%scolors.%s must be #rgb or #rrggbb", where, k)
			}
			if k == "line" {
				l.Line = s
			} else {
				l.Background = s
			}
		}
	}
	if v, ok := m[nameKey]; ok {
		s, isString := v.(string)
		if !isString {
			return Look{}, fmt.Errorf("%s%s must be text", where, nameKey)
		}
		if err := checkDisplayName(s); err != nil {
			return Look{}, fmt.Errorf("%s%s %w", where, nameKey, err)
		}
		l.DisplayName = s
	}
	return l, nil
}

// checkDisplayName accepts plain text of 1 to 60 characters: no control or
// formatting characters (bidi overrides included) and no markup.
func checkDisplayName(s string) error {
	if !utf8.ValidString(s) || strings.TrimSpace(s) == "" {
		return errors.New("must be non-blank text")
	}
	if utf8.RuneCountInString(s) > MaxDisplayName {
		return errors.New("must be at most 60 characters")
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '<' || r == '>' {
			return errors.New("must be plain text (no control characters or markup)")
		}
	}
	return nil
}

// clip shortens a name taken from the input before it goes into an error.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
