// Package recipetest holds the recipe fixtures that the relay's tests and
// relay/recipes' own tests share: a recipe that follows every rule, the
// folder's own codex recipe, and writing one into an agent folder.
package recipetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Valid is a ready recipe that follows every rule, as a JSON-ready map a
// test may change.
func Valid() map[string]any {
	return map[string]any{
		"schema":      "harnest-recipe-1",
		"id":          "my-harness",
		"revision":    7,
		"label":       "My harness at home",
		"transport":   "relay-poll-v1",
		"connector":   "harness-connector-exec",
		"pairing":     map[string]any{"instruction_id": "private-code-in-connector"},
		"card":        map[string]any{"mapping": map[string]any{"name": "owner_choice", "kind": "recipe_id", "skills": "declared_skills"}},
		"stage_words": map[string]any{"connected": "Home. Connected.", "unavailable": "My harness is away."},
		"evidence": map[string]any{"checked_on": "2026-11-30", "status": "ready",
			"measured_by": "my-harness --help sha256 " + strings.Repeat("0a", 32)},
		"contract": map[string]any{"version": 1, "operations": []any{"answer", "stream"}, "cancellation": true, "resume": false},
	}
}

// CodexOverride is the folder's own codex recipe: ready, revision 2.
func CodexOverride() map[string]any {
	m := Valid()
	m["id"], m["revision"], m["label"] = "codex", 2, "Our reviewed Codex"
	delete(m["evidence"].(map[string]any), "measured_by")
	return m
}

// Write writes a recipe file into folder's recipes/.
func Write(t testing.TB, folder, file string, m map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(folder, "recipes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "recipes", file), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
