package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A preset is the fixed command of a known harness for "harnest connect
// --preset NAME": the program is started directly with these arguments and
// the question on its standard input, never through a shell, and nothing
// of the question ever becomes an argument.
type preset struct {
	argv    []string
	dropEnv []string // variables the child must not see
	about   string
}

// presets are the guide's fixed commands.
var presets = map[string]preset{
	// Claude Code in print mode reads the prompt from standard input when
	// it is given none as an argument.
	"claude": {argv: []string{"claude", "-p"}, about: "Claude Code, print mode"},
	// "codex exec -" reads the instructions from standard input.
	"codex": {argv: []string{"codex", "exec", "-"}, about: "Codex, non-interactive"},
	// Gemini CLI uses the cached Google sign-in: exported API keys are
	// removed so that they do not take its place.
	"gemini": {argv: []string{"gemini", "-p", "Answer the question on standard input briefly."},
		dropEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, about: "Gemini CLI, without GEMINI_API_KEY and GOOGLE_API_KEY"},
	// OpenClaw's installed agent, the message read from standard input.
	"openclaw": {argv: []string{"openclaw", "agent", "--agent", "main", "--message-file", "/dev/stdin"}, about: "OpenClaw's main agent"},
	// The DeepSeek Harness's headless profile.
	"deepseek": {argv: []string{"dsh", "--profile", "headless"}, about: "DeepSeek Harness, headless profile"},
}

// presetNames lists the presets in order.
func presetNames() []string {
	return slices.Sorted(maps.Keys(presets))
}

// presetList is the presets for the usage text, one a line.
func presetList() string {
	var b strings.Builder
	for _, name := range presetNames() {
		p := presets[name]
		fmt.Fprintf(&b, "              %-9s %s (%s)\n", name, shellWords(p.argv), p.about)
	}
	return strings.TrimRight(b.String(), "\n")
}

// shellWords shows argv as words, quoting those with spaces.
func shellWords(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = a
		if strings.ContainsAny(a, " \t") {
			words[i] = strconv.Quote(a)
		}
	}
	return strings.Join(words, " ")
}

// presetAnswerer is the command of the preset name.
func presetAnswerer(name string, stderr io.Writer) (*commandAnswerer, error) {
	p, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("--preset: unknown preset %q; the presets are %s (or give your own command with --exec)",
			name, strings.Join(presetNames(), ", "))
	}
	return &commandAnswerer{argv: slices.Clone(p.argv), dropEnv: p.dropEnv, stderr: stderr,
		label: fmt.Sprintf("the %s preset (%q)", name, p.argv[0])}, nil
}
