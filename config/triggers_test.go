package config

import (
	"strings"
	"testing"
)

const triggerSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func triggersConfig(triggers string) string {
	return minimalConfig + "server:\n  triggers:\n" + triggers
}

func TestTriggersLoad(t *testing.T) {
	dir := writeFolder(t, triggersConfig(`    issues:
      secretEnv: HOOK_SECRET
      user: alice
      input: "New issue {/issue/title}"
      session: "gh-{/issue/number}"
      answer: {waitId: /approvalId, approved: /approved}
    gh:
      scheme: github
      secretEnv: GH_SECRET
      toleranceSeconds: 60
      input: "{/action}"
`), minimalCard, minimalInstructions)
	f := mustLoad(t, dir, map[string]string{"HOOK_SECRET": triggerSecret, "GH_SECRET": "plain text"})
	issues, gh := f.Config.Server.Triggers["issues"], f.Config.Server.Triggers["gh"]
	if issues.Secret != triggerSecret || issues.Scheme != TriggerStandardWebhooks || issues.ToleranceSeconds != 300 || issues.RememberSeconds != 86400 {
		t.Fatalf("issues: %+v", issues)
	}
	if gh.Secret != "plain text" || gh.Scheme != TriggerGitHub || gh.ToleranceSeconds != 60 || issues.Answer.WaitID != "/approvalId" {
		t.Fatalf("gh: %+v", gh)
	}
}

func TestTriggersRefused(t *testing.T) {
	env := map[string]string{"HOOK_SECRET": triggerSecret, "NOT_BASE64": "whsec_%%%"}
	cases := []struct{ yaml, path, want string }{
		{"    Bad_Name: {secretEnv: HOOK_SECRET, input: x}\n", "server.triggers.Bad_Name", "lowercase"},
		{"    a: {secretEnv: HOOK_SECRET, input: x, scheme: slack}\n", "server.triggers.a.scheme", "standardWebhooks or github"},
		{"    a: {input: x}\n", "server.triggers.a.secretEnv", "required"},
		{"    a: {secretEnv: UNSET_ONE, input: x}\n", "server.triggers.a.secretEnv", "UNSET_ONE is not set"},
		{"    a: {secretEnv: NOT_BASE64, input: x}\n", "server.triggers.a.secretEnv", "whsec_"},
		{"    a: {secretEnv: HOOK_SECRET, input: x, toleranceSeconds: 0.5}\n", "server.triggers.a.toleranceSeconds", ""},
		{"    a: {secretEnv: HOOK_SECRET, input: x, toleranceSeconds: 100, rememberSeconds: 150}\n", "server.triggers.a.rememberSeconds", "twice"},
		{"    a: {secretEnv: HOOK_SECRET, input: \"{issue}\"}\n", "server.triggers.a.input", "not a template"},
		{"    a: {secretEnv: HOOK_SECRET, input: x, session: \"{/a\"}\n", "server.triggers.a.session", "not a template"},
		{"    a: {secretEnv: HOOK_SECRET}\n", "server.triggers.a", "set input"},
		{"    a: {secretEnv: HOOK_SECRET, answer: {approved: /ok}}\n", "server.triggers.a.answer.waitId", "required"},
		{"    a: {secretEnv: HOOK_SECRET, answer: {waitId: /id}}\n", "server.triggers.a.answer", "set approved"},
		{"    a: {secretEnv: HOOK_SECRET, answer: {waitId: id, output: /o}}\n", "server.triggers.a.answer.waitId", "must start with /"},
		{"    a: {secretEnv: HOOK_SECRET, input: x, onBusy: wait}\n", "server.triggers.a.onBusy", "reject, enqueue"},
		{"    a: {secretEnv: HOOK_SECRET, input: x, secret: inline}\n", "server.triggers.a.secret", "unknown field"},
	}
	for _, c := range cases {
		probs := mustProblems(t, writeFolder(t, triggersConfig(c.yaml), minimalCard, minimalInstructions), env)
		if !hasLine(probs, c.path, c.want) {
			t.Errorf("%s: want a problem at %s with %q, got:\n%v", strings.TrimSpace(c.yaml), c.path, c.want, probs)
		}
		if strings.Contains(probs.Error(), "MfKQ9r8") || strings.Contains(probs.Error(), "%%%") {
			t.Errorf("a problem shows a secret: %v", probs)
		}
	}
}
