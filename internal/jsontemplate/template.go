package jsontemplate

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Template is a parsed template: literal text and pointers, in order.
type Template struct {
	parts []part
}

type part struct {
	text    string
	pointer *Pointer
}

// Parse parses a template. Errors say what is wrong and where.
func Parse(s string) (Template, error) {
	var t Template
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, part{text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{' && strings.HasPrefix(s[i:], "{{"):
			lit.WriteByte('{')
			i++
		case c == '}' && strings.HasPrefix(s[i:], "}}"):
			lit.WriteByte('}')
			i++
		case c == '}':
			return Template{}, fmt.Errorf("a } at byte %d closes nothing (write }} for a literal brace)", i)
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return Template{}, fmt.Errorf("the { at byte %d is not closed (write {{ for a literal brace)", i)
			}
			p, err := ParsePointer(s[i+1 : i+end])
			if err != nil {
				return Template{}, err
			}
			flush()
			t.parts = append(t.parts, part{pointer: &p})
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return t, nil
}

// MissingError names a pointer the document has no value at.
type MissingError struct{ Pointer string }

func (e *MissingError) Error() string {
	return fmt.Sprintf("the payload has no value at %s", e.Pointer)
}

// Render fills the template from doc (decoded by encoding/json, ideally
// with UseNumber so numbers keep their text). A missing value is a
// *MissingError.
func (t Template) Render(doc any) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.pointer == nil {
			b.WriteString(p.text)
			continue
		}
		v, ok := p.pointer.Lookup(doc)
		if !ok {
			return "", &MissingError{Pointer: p.pointer.String()}
		}
		b.WriteString(Text(v))
	}
	return b.String(), nil
}

// Text is a value as a template puts it in: a string as it is, anything
// else as compact JSON.
func Text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	out, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(out)
}

// IsZero reports whether the template is empty.
func (t Template) IsZero() bool { return len(t.parts) == 0 }
