package main

// Tests of "harnest connect --preset": each preset runs its fixed command,
// found on PATH, with the question on standard input and never through a
// shell. Stand-in programs named like the real harnesses (a temp dir put
// first on PATH) print their arguments, the variables under test and what
// they read.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
)

// standIn prints what it was given, one "key=value" a line.
const standIn = `#!/bin/sh
printf 'program=%s\n' "$(basename "$0")"
for a in "$@"; do printf 'arg=%s\n' "$a"; done
printf 'GEMINI_API_KEY=%s\n' "${GEMINI_API_KEY-unset}"
printf 'GOOGLE_API_KEY=%s\n' "${GOOGLE_API_KEY-unset}"
printf 'OTHER=%s\n' "${HARNEST_PRESET_TEST_OTHER-unset}"
printf 'stdin=%s\n' "$(cat)"
`

// wantPresets are the guide's fixed commands.
var wantPresets = map[string][]string{
	"claude":   {"claude", "-p"},
	"codex":    {"codex", "exec", "-"},
	"gemini":   {"gemini", "-p", "Answer the question on standard input briefly."},
	"openclaw": {"openclaw", "agent", "--agent", "main", "--message-file", "/dev/stdin"},
	"deepseek": {"dsh", "--profile", "headless"},
}

// standInPath puts stand-ins for every preset's program first on PATH and
// sets the variables the presets keep or drop.
func standInPath(t *testing.T) {
	t.Helper()
	needProgram(t, "sh")
	dir := t.TempDir()
	for _, argv := range wantPresets {
		if err := os.WriteFile(filepath.Join(dir, argv[0]), []byte(standIn), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GEMINI_API_KEY", "gemini-key")
	t.Setenv("GOOGLE_API_KEY", "google-key")
	t.Setenv("HARNEST_PRESET_TEST_OTHER", "kept")
}

// standInLines is what a stand-in printed, as lines.
func standInLines(out string) []string {
	_, printed, _ := strings.Cut(out, "program=")
	return strings.Split(strings.TrimRight("program="+printed, "\n"), "\n")
}

func TestPresetsRunTheirFixedCommands(t *testing.T) {
	standInPath(t)
	if len(presets) != len(wantPresets) {
		t.Fatalf("%d presets, want %d: %v", len(presets), len(wantPresets), presetNames())
	}
	for name, argv := range wantPresets {
		t.Run(name, func(t *testing.T) {
			rc, out, errs := selfTest(t, nil, "--preset", name)
			if rc != 0 {
				t.Fatalf("self-test: %d %q %s", rc, out, errs)
			}
			want := []string{"program=" + argv[0]}
			for _, a := range argv[1:] {
				want = append(want, "arg="+a)
			}
			keys := []string{"GEMINI_API_KEY=gemini-key", "GOOGLE_API_KEY=google-key"}
			if name == "gemini" {
				keys = []string{"GEMINI_API_KEY=unset", "GOOGLE_API_KEY=unset"}
			}
			want = append(want, keys...)
			want = append(want, "OTHER=kept", "stdin="+connectSelfTestQ)
			if got := standInLines(out); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("the stand-in printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestPresetErrors(t *testing.T) {
	rc, _, errs := selfTest(t, nil, "--preset", "cursor")
	if rc != 2 || !strings.Contains(errs, `unknown preset "cursor"`) ||
		!strings.Contains(errs, "claude, codex, deepseek, gemini, openclaw") {
		t.Fatalf("unknown preset: %d %s", rc, errs)
	}
	if rc, _, errs := selfTest(t, nil, "--preset", "claude", "--exec", "cat"); rc != 2 || !strings.Contains(errs, "only one") {
		t.Fatalf("two answerers: %d %s", rc, errs)
	}
	if rc, _, errs := selfTest(t, nil); rc != 2 || !strings.Contains(errs, "--preset") {
		t.Fatalf("no answerer: %d %s", rc, errs)
	}
}

// TestPresetThroughRelay answers a relayed turn with the codex preset: a
// question full of shell syntax arrives on standard input as it was asked.
func TestPresetThroughRelay(t *testing.T) {
	standInPath(t)
	rr := newRelayReplica(t, "", &config.RelayBackend{Name: "Codex", Kind: "codex"})
	code := rr.pairCode(t, "Codex", "codex")
	c := rr.connect(t, code, "--name", "Codex", "--kind", "codex", "--preset", "codex")
	waitConnected(t, c)
	question := "$(echo INJECTED) `id` ; echo 'single' \"double\" | cat > /dev/null && $HOME"
	status, v := rr.respond(t, question)
	answer, _ := v["outputText"].(string)
	if status != 200 || !strings.Contains(answer, "\nstdin="+question) || !strings.Contains(answer, "arg=exec\narg=-\n") {
		t.Fatalf("turn: %d %q; connect: %s", status, answer, c.stderr.String())
	}
}
