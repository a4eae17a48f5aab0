package jsontemplate

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRender(t *testing.T) {
	doc := decode(t, `{"issue":{"title":"Crash","number":12,"labels":["bug","p1"]},"a/b":{"m~n":true},"":"root"}`)
	cases := []struct{ tmpl, want string }{
		{"New issue {/issue/title}", "New issue Crash"},
		{"gh-{/issue/number}", "gh-12"},
		{"{/issue/labels/1}", "p1"},
		{"{/issue/labels}", `["bug","p1"]`},
		{"{/a~1b/m~0n}", "true"},
		{"{/}", "root"},
		{"{{literal}} {/issue/number}", "{literal} 12"},
		{"plain", "plain"},
	}
	for _, c := range cases {
		tm, err := Parse(c.tmpl)
		if err != nil {
			t.Fatalf("%q: %v", c.tmpl, err)
		}
		got, err := tm.Render(doc)
		if err != nil || got != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.tmpl, got, err, c.want)
		}
	}
}

func TestRenderMissing(t *testing.T) {
	doc := decode(t, `{"issue":{"labels":["bug"]}}`)
	for _, tmpl := range []string{"{/issue/title}", "{/issue/labels/1}", "{/issue/labels/01}", "{/issue/labels/x}", "{/nope/deeper}"} {
		tm, err := Parse(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		var me *MissingError
		if _, err := tm.Render(doc); !errors.As(err, &me) {
			t.Errorf("%q: got %v, want a missing value", tmpl, err)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tmpl := range []string{"{issue}", "{/a", "a}", "{/a~2}", "{/a~}"} {
		if _, err := Parse(tmpl); err == nil {
			t.Errorf("%q parsed", tmpl)
		}
	}
}

// FuzzTemplate: parsing and rendering any template over any document
// never panics.
func FuzzTemplate(f *testing.F) {
	f.Add("New issue {/issue/title} {{x}}", `{"issue":{"title":"a"}}`)
	f.Add("{/a~1b/0}", `{"a/b":[1]}`)
	f.Fuzz(func(t *testing.T, tmpl, doc string) {
		tm, err := Parse(tmpl)
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		_, _ = tm.Render(v)
	})
}
