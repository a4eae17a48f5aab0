package skills

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSkillName(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{"echo", "echo"},
		{"Summarize_PDF  Files!", "summarize-pdf-files"},
		{"--weird--id--", "weird-id"},
		{"日本語", "skill"},
		{"café-2", "caf-2"},
		{strings.Repeat("ab-", 40), strings.TrimSuffix(strings.Repeat("ab-", 22)[:64], "-")},
	} {
		if got := skillName(c.id); got != c.want {
			t.Errorf("skillName(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}

func TestUniqueName(t *testing.T) {
	taken := map[string]bool{}
	long := strings.Repeat("x", 64)
	got := []string{uniqueName("echo", taken), uniqueName("echo", taken), uniqueName("echo", taken), uniqueName(long, taken), uniqueName(long, taken)}
	want := []string{"echo", "echo-2", "echo-3", long, strings.Repeat("x", 62) + "-2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("unique names %q, want %q", got, want)
	}
}

func TestDescriptionLimit(t *testing.T) {
	s := skill{ID: "long", Title: "Long", Description: strings.Repeat("word ", 400), Tags: []string{"a"}}
	d := skillDescription(s, "Agent")
	if n := utf8.RuneCountInString(d); n > maxDescriptionLength || !strings.HasSuffix(d, "…") {
		t.Errorf("description of %d characters ends %q", n, d[len(d)-10:])
	}
	short := skillDescription(skill{ID: "echo", Title: "Echo", Description: "Repeats the message back.", Examples: []string{"Hello!"}}, "Hello")
	if short != `Repeats the message back. Use it when the user asks for Echo, for example "Hello!": the remote agent Hello does the work.` {
		t.Errorf("description %q", short)
	}
}
