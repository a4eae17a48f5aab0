package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// commandAnswerer runs a local program once per question (--exec and
// --preset): the question on its standard input, the answer on its
// standard output. The program is started directly, never through a
// shell.
type commandAnswerer struct {
	argv    []string
	dropEnv []string // variables removed from the child's environment
	label   string   // how messages name it; default the program's name
	stderr  io.Writer
}

func (a *commandAnswerer) what() string {
	if a.label != "" {
		return a.label
	}
	return fmt.Sprintf("the command %q", a.argv[0])
}

func (a *commandAnswerer) answer(ctx context.Context, j job) (string, error) {
	cmd := exec.CommandContext(ctx, a.argv[0], a.argv[1:]...)
	cmd.Stdin = strings.NewReader(j.text)
	out := &limitedBuffer{max: connectMaxOutput}
	cmd.Stdout = out
	cmd.Stderr = a.stderr
	cmd.WaitDelay = time.Second
	cmd.Env = a.env(j)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%s failed: %v", a.what(), err)
	}
	return out.String(), nil
}

// env is the child's environment: this process's, without the
// connector's secrets and the preset's dropped variables, plus the tools
// at home variables of this job (connect_tools.go).
func (a *commandAnswerer) env(j job) []string {
	drop := append([]string{"HARNEST_PAIRING_CODE", "HARNEST_TOKEN"}, a.dropEnv...)
	var env []string
	for _, kv := range withoutToolsEnv(os.Environ()) {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, name) {
			env = append(env, kv)
		}
	}
	return append(env, toolsChildEnv(j.server, j.callbackToken, j.runNote)...)
}

// splitArgs splits a command line into argv like a shell would split
// words, without running a shell: spaces separate, single and double
// quotes group, a backslash escapes the next character (outside single
// quotes).
func splitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, errors.New("unterminated quote or escape")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// checkAnswer applies the relay's reply rules.
func checkAnswer(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("the answer is not valid UTF-8")
	}
	if strings.TrimSpace(s) == "" {
		return errors.New("the answer is blank")
	}
	if n := utf8.RuneCountInString(s); n > connectMaxAnswer {
		return fmt.Errorf("the answer has %d characters; at most %d are allowed", n, connectMaxAnswer)
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return errors.New("the answer contains control characters")
		}
	}
	return nil
}

// limitedBuffer keeps at most max bytes and drops the rest.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}
