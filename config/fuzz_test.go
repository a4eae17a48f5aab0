package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadConfig feeds arbitrary bytes to Load as config.yaml. Load must
// never panic, and must either succeed or return *Problems.
func FuzzLoadConfig(f *testing.F) {
	f.Add([]byte(minimalConfig))
	f.Add([]byte(""))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte(minimalConfig + "server:\n  http:\n    port: ${PORT}\n  limits:\n    maxRequestBytes: ${SIZE}\n"))
	f.Add([]byte(minimalConfig + "auth:\n  tokens:\n    - {token: ${TOKEN}, user: a}\n    - {token: ${TOKEN}, user: b}\n"))
	f.Add([]byte("a: &a [*a]\nspec: *a\n"))
	f.Add([]byte("server:\n  <<: {live: true}\n  ? [a]\n  : b\n"))
	if example, err := os.ReadFile(examplePath); err == nil {
		f.Add(example)
	}
	env := envMap(map[string]string{"PORT": "8080", "SIZE": "2MiB", "TOKEN": "fuzz-token", "BOOL": "true"})

	f.Fuzz(func(t *testing.T, data []byte) {
		dir := writeFolder(t, "", minimalCard, minimalInstructions)
		if err := os.WriteFile(filepath.Join(dir, configFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		folder, err := LoadWithEnv(dir, env)
		if err != nil {
			var probs *Problems
			if !errors.As(err, &probs) || probs.Len() == 0 {
				t.Fatalf("error is not a non-empty *Problems: %v", err)
			}
			if folder != nil {
				t.Fatal("folder returned with an error")
			}
			return
		}
		if folder.Config.Server.HTTP.Port < 1 || folder.Config.Server.HTTP.Port > 65535 {
			t.Fatalf("accepted port %d", folder.Config.Server.HTTP.Port)
		}
	})
}

// FuzzLoadCard feeds arbitrary bytes to Load as agent-card.yaml. Load must
// never panic, and an accepted card must be JSON-ready.
func FuzzLoadCard(f *testing.F) {
	f.Add([]byte(minimalCard))
	f.Add([]byte(minimalCard + "extra: &x [*x, !!binary aGk=, 2001-02-03, .inf, !custom x]\n"))
	f.Add([]byte("? [a]\n: b\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		dir := writeFolder(t, minimalConfig, "", minimalInstructions)
		if err := os.WriteFile(filepath.Join(dir, cardFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		folder, err := LoadWithEnv(dir, envMap(nil))
		if err != nil {
			var probs *Problems
			if !errors.As(err, &probs) || probs.Len() == 0 {
				t.Fatalf("error is not a non-empty *Problems: %v", err)
			}
			return
		}
		if _, err := json.Marshal(folder.Card); err != nil {
			t.Fatalf("accepted card is not JSON-ready: %v", err)
		}
	})
}
