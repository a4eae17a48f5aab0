package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExtendedCardIsOptional(t *testing.T) {
	f := mustLoad(t, writeFolder(t, minimalConfig, minimalCard, minimalInstructions), nil)
	if f.ExtendedCard != nil {
		t.Fatalf("extended card without the file: %v", f.ExtendedCard)
	}
}

func TestExtendedCardLaysOverThePublicCard(t *testing.T) {
	dir := writeFolder(t, minimalConfig, minimalCard, minimalInstructions)
	extended := "description: Answers questions, with the premium skills.\n" +
		"skills:\n  - {id: respond, name: Respond, description: Answers., tags: [chat]}\n" +
		"  - {id: premium, name: Premium, description: Answers in depth., tags: [chat]}\n"
	if err := os.WriteFile(filepath.Join(dir, extendedCardFile), []byte(extended), 0o644); err != nil {
		t.Fatal(err)
	}
	f := mustLoad(t, dir, nil)
	ec := f.ExtendedCard
	if ec["name"] != "My Agent" || ec["description"] != "Answers questions, with the premium skills." {
		t.Errorf("merged fields: name %v, description %v", ec["name"], ec["description"])
	}
	if skills, _ := ec["skills"].([]any); len(skills) != 2 {
		t.Errorf("skills %v", ec["skills"])
	}
	if skills, _ := f.Card["skills"].([]any); len(skills) != 1 || f.Card["description"] != "Answers questions." {
		t.Errorf("the public card changed: %v", f.Card)
	}
}

func TestExtendedCardProblemsNameTheFile(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"not a mapping", "- a\n- b\n", "agent-card.extended.yaml: expected a mapping"},
		{"bad field", "skills: {}\n", "agent-card.extended.yaml: skills: expected a list"},
		{"bad yaml", "name: [\n", "agent-card.extended.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFolder(t, minimalConfig, minimalCard, minimalInstructions)
			if err := os.WriteFile(filepath.Join(dir, extendedCardFile), []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			if probs := mustProblems(t, dir, nil); !strings.Contains(probs.Error(), c.want) {
				t.Errorf("problems %q, want %q", probs.Error(), c.want)
			}
		})
	}
	dir := writeFolder(t, minimalConfig, minimalCard, minimalInstructions)
	if err := os.Symlink(filepath.Join(dir, cardFile), filepath.Join(dir, extendedCardFile)); err != nil {
		t.Fatal(err)
	}
	if probs := mustProblems(t, dir, nil); !strings.Contains(probs.Error(), "agent-card.extended.yaml: is a symbolic link") {
		t.Errorf("symlink: %q", probs.Error())
	}
}
