package config

import (
	"strings"
	"testing"
)

func TestRelayToolsAtHome(t *testing.T) {
	relayAgent := strings.Replace(minimalConfig, "echo: {}", "relay: {}", 1)
	t.Run("tools of a relay agent", func(t *testing.T) {
		cfg := relayAgent + "  relay: {toolsAtHome: true}\n  tools:\n    - {name: lookup, exec: {command: [cat]}}\n"
		f := mustLoad(t, writeFolder(t, cfg, minimalCard, minimalInstructions), nil)
		if !f.Config.Spec.Relay.ToolsAtHome || len(f.Config.Spec.Tools) != 1 {
			t.Fatalf("spec %+v", f.Config.Spec)
		}
	})
	t.Run("no tools to offer", func(t *testing.T) {
		probs := mustProblems(t, writeFolder(t, relayAgent+"  relay: {toolsAtHome: true}\n", minimalCard, minimalInstructions), nil)
		if !hasLine(probs, "spec.relay.toolsAtHome", "needs tools") {
			t.Fatalf("problems %v", probs.Lines())
		}
	})
	t.Run("client tools are not tools at home", func(t *testing.T) {
		cfg := relayAgent + "  relay: {toolsAtHome: true}\n  tools:\n    - {name: lookup, exec: {command: [cat]}}\n  clientTools:\n    - {name: pick}\n"
		probs := mustProblems(t, writeFolder(t, cfg, minimalCard, minimalInstructions), nil)
		if !hasLine(probs, "spec.clientTools", "only the model backend") {
			t.Fatalf("problems %v", probs.Lines())
		}
	})
	t.Run("tools without tools at home", func(t *testing.T) {
		cfg := relayAgent + "  tools:\n    - {name: lookup, exec: {command: [cat]}}\n"
		probs := mustProblems(t, writeFolder(t, cfg, minimalCard, minimalInstructions), nil)
		if !hasLine(probs, "spec.tools", "only the model backend") {
			t.Fatalf("problems %v", probs.Lines())
		}
	})
}
