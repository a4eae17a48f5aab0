package a2a

import (
	"fmt"
	"mime"
	"sort"
	"strings"
)

// The card's input modes have teeth: a message with a part whose media
// type the agent does not take is refused with ContentTypeNotSupported
// (A2A 1.0 §3.1.1, §3.3.2) on every binding, before anything is stored or
// run. The agent takes the media types of the card's defaultInputModes and
// of every skill's inputModes (a message names no skill, so any skill's
// are taken). A part's media type is its mediaType (0.3 file.mimeType), or
// by its kind: text/plain for text, application/json for data,
// application/octet-stream for a file that names none. Parameters and
// case do not count ("text/plain; charset=utf-8" is text/plain); a mode
// "image/*" takes every image type, "*/*" everything, and a mode without a
// slash ("text", as early cards wrote) every type under it.
//
// A message that continues a task (taskId) is not the agent's input but
// the answer to what it asked for: an approval decision or a client tool's
// output, which answer() takes as exactly one text or data part (and
// refuses any other with ContentTypeNotSupported). Its data part is the
// documented answer whatever the card's modes, so the modes are not
// checked there.
//
// acceptedOutputModes are not checked: the spec asks agents to tailor
// their output to them (SHOULD), not to refuse a request over them, and
// an agent's output is only known once it runs.

// mediaTypes is a set of media types a card declares.
type mediaTypes struct {
	any      bool            // "*/*": every type
	exact    map[string]bool // "text/plain"
	families map[string]bool // "image" for "image/*"
	declared []string        // as the card writes them, sorted, for messages
}

// inputModesOf reads the media types a card takes; nil when it declares
// none (every type is taken then).
func inputModesOf(card map[string]any) *mediaTypes {
	m := &mediaTypes{exact: map[string]bool{}, families: map[string]bool{}}
	seen := map[string]bool{}
	add := func(list any) {
		items, _ := list.([]any)
		for _, item := range items {
			mode, _ := item.(string)
			mode = strings.TrimSpace(mode)
			if mode == "" || seen[mode] {
				continue
			}
			seen[mode] = true
			m.declared = append(m.declared, mode)
			t := baseMediaType(mode)
			switch family, sub, ok := strings.Cut(t, "/"); {
			case t == "*/*" || t == "*":
				m.any = true
			case !ok || sub == "*":
				m.families[family] = true
			default:
				m.exact[t] = true
			}
		}
	}
	add(card["defaultInputModes"])
	skills, _ := card["skills"].([]any)
	for _, s := range skills {
		skill, _ := s.(map[string]any)
		add(skill["inputModes"])
	}
	if len(m.declared) == 0 {
		return nil
	}
	sort.Strings(m.declared)
	return m
}

// baseMediaType is a media type without parameters, in lower case.
func baseMediaType(t string) string {
	if base, _, err := mime.ParseMediaType(t); err == nil {
		return base
	}
	base, _, _ := strings.Cut(t, ";")
	return strings.ToLower(strings.TrimSpace(base))
}

// takes reports whether the set has a media type.
func (m *mediaTypes) takes(t string) bool {
	if m == nil || m.any || m.exact[t] {
		return true
	}
	family, _, _ := strings.Cut(t, "/")
	return m.families[family]
}

// partMediaType is the media type a part is taken as.
func partMediaType(p Part) string {
	switch {
	case p.MediaType != "":
		return baseMediaType(p.MediaType)
	case p.Text != nil:
		return "text/plain"
	case p.Data != nil:
		return "application/json"
	}
	return "application/octet-stream"
}

// checkInputModes refuses a message that starts a task with a part the
// agent does not take.
func (s *Server) checkInputModes(m Message) error {
	if s.info.inputModes == nil || m.TaskID != "" {
		return nil
	}
	for i, p := range m.Parts {
		if t := partMediaType(p); !s.info.inputModes.takes(t) {
			return errContentType(fmt.Sprintf(
				"message.parts[%d] is %s, which this agent does not take; it takes %s (its card's defaultInputModes and skills' inputModes)",
				i, clip(t), strings.Join(s.info.inputModes.declared, ", ")))
		}
	}
	return nil
}
