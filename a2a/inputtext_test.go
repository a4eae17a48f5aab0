package a2a

import (
	"strings"
	"testing"
)

// The turn's input text is the message's non-blank text parts joined with
// newlines, as strings.Join writes them.
func TestInputTextJoinsNonBlankTexts(t *testing.T) {
	text := func(s string) Part { return Part{Text: &s} }
	data := Part{Data: []byte(`{}`)}
	cases := [][]Part{nil, {data}, {text(" ")}, {text("a")}, {text("a"), data, text("  "), text("b")},
		{text("a"), text("b\n"), text("c")}, {data, text(""), text("x")}}
	for _, parts := range cases {
		var want []string
		for _, p := range parts {
			if p.Text != nil && strings.TrimSpace(*p.Text) != "" {
				want = append(want, *p.Text)
			}
		}
		if got := inputText(parts); got != strings.Join(want, "\n") {
			t.Fatalf("%d parts: %q, want %q", len(parts), got, strings.Join(want, "\n"))
		}
	}
}
