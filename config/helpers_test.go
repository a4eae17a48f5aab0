package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const minimalConfig = `apiVersion: harnest.dev/v1alpha1
kind: Agent
metadata:
  name: my-agent
spec:
  backend:
    echo: {}
`

const minimalCard = `name: My Agent
description: Answers questions.
version: 1.0.0
supportedInterfaces:
  - url: http://127.0.0.1:1907
    protocolBinding: HTTP+JSON
    protocolVersion: "1.0"
capabilities:
  streaming: true
defaultInputModes: [text/plain]
defaultOutputModes: [text/plain]
skills:
  - id: respond
    name: Respond
    description: Answers a message.
    tags: [chat]
`

const minimalInstructions = "You are a helpful agent.\n"

// writeFolder creates an agent folder holding the given files.
func writeFolder(t testing.TB, config, card, instructions string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(configFile, config)
	write(cardFile, card)
	write(instructionsFile, instructions)
	return dir
}

// envMap turns a map into a lookup function.
func envMap(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
}

// mustProblems loads dir and returns the problems, failing if it loaded.
func mustProblems(t *testing.T, dir string, env map[string]string) *Problems {
	t.Helper()
	folder, err := LoadWithEnv(dir, envMap(env))
	if err == nil {
		t.Fatalf("load succeeded, want problems; config: %+v", folder.Config)
	}
	if folder != nil {
		t.Errorf("folder is not nil on error")
	}
	var probs *Problems
	if !errors.As(err, &probs) {
		t.Fatalf("error is %T, want *Problems: %v", err, err)
	}
	if probs.Len() == 0 || probs.Error() == "" {
		t.Fatalf("empty problems")
	}
	return probs
}

// mustLoad loads dir and fails the test on problems.
func mustLoad(t *testing.T, dir string, env map[string]string) *Folder {
	t.Helper()
	folder, err := LoadWithEnv(dir, envMap(env))
	if err != nil {
		t.Fatalf("load failed:\n%v", err)
	}
	return folder
}

// hasLine reports whether one problem line contains every part.
func hasLine(probs *Problems, parts ...string) bool {
	for _, line := range probs.Lines() {
		all := true
		for _, part := range parts {
			if !strings.Contains(line, part) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
