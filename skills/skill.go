package skills

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of the Agent Skills front matter.
const (
	maxNameLength        = 64
	maxDescriptionLength = 1024 // characters
)

// skill is one skill of the agent card, as the card states it.
type skill struct {
	ID          string
	Title       string // the card's name of the skill
	Description string
	Tags        []string
	Examples    []string
}

// cardSkills reads skills[] of the card: entries without a string id, and
// repeats of an id, are left out.
func cardSkills(card map[string]any) []skill {
	items, _ := card["skills"].([]any)
	seen := map[string]bool{}
	var out []skill
	for _, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		id, _ := m["id"].(string)
		id = strings.TrimSpace(id)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		s := skill{ID: id, Title: text(m["name"]), Description: text(m["description"]),
			Tags: texts(m["tags"]), Examples: texts(m["examples"])}
		if s.Title == "" {
			s.Title = id
		}
		out = append(out, s)
	}
	return out
}

func text(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

func texts(v any) []string {
	items, _ := v.([]any)
	var out []string
	for _, item := range items {
		if s := text(item); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// skillName derives an Agent Skills name from a skill id: lowercase ASCII
// letters and digits, every other run of characters one hyphen, no hyphen
// at either end, at most 64 characters; "skill" when nothing is left.
func skillName(id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	name := b.String()
	if len(name) > maxNameLength {
		name = name[:maxNameLength]
	}
	name = strings.Trim(name, "-")
	if name == "" {
		return "skill"
	}
	return name
}

// uniqueName is name, or name with a number appended when another skill
// already took it, within the length limit.
func uniqueName(name string, taken map[string]bool) string {
	candidate := name
	for n := 2; taken[candidate]; n++ {
		suffix := fmt.Sprintf("-%d", n)
		base := name
		if len(base)+len(suffix) > maxNameLength {
			base = strings.TrimRight(base[:maxNameLength-len(suffix)], "-")
		}
		candidate = base + suffix
	}
	taken[candidate] = true
	return candidate
}

// skillDescription is what the skill does and when to use it, within the
// length limit.
func skillDescription(s skill, agent string) string {
	what := s.Description
	if what == "" {
		what = s.Title + "."
	}
	if !strings.HasSuffix(what, ".") && !strings.HasSuffix(what, "!") && !strings.HasSuffix(what, "?") {
		what += "."
	}
	when := fmt.Sprintf(" Use it when the user asks for %s", s.Title)
	if len(s.Tags) > 0 {
		when += " (" + strings.Join(s.Tags, ", ") + ")"
	}
	if len(s.Examples) > 0 {
		when += fmt.Sprintf(", for example %q", s.Examples[0])
	}
	when += fmt.Sprintf(": the remote agent %s does the work.", agent)
	return clip(strings.Join(strings.Fields(what+when), " "), maxDescriptionLength)
}

// clip cuts s to at most n characters, at a space when there is one near
// the end, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)[:n-1]
	cut := string(runes)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return cut + "…"
}
