package router_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// orderedFolder is an agent folder whose config.yaml declares the
// harnesses out of alphabetical order: desk, zed, beta, alpha.
func orderedFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"agent-card.yaml", "instructions.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "hello", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const cfg = `apiVersion: harnest.dev/v1alpha1
kind: Agent
metadata:
  name: ordered
spec:
  backend:
    router:
      harnesses:
        desk: {echo: {}}
        zed: {exec: {command: ["/bin/sh", "-c", "exit 3"]}}
        beta: {echo: {}, skills: [code]}
        alpha: {echo: {}, skills: [code]}
      house: desk
      choice: auto
      fallback: next_harness
`
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDeclaredOrder: auto ties and next_harness follow the order of the
// harnesses: mapping in config.yaml, not the names' order.
func TestDeclaredOrder(t *testing.T) {
	s := servertest.Setup{Folder: orderedFolder(t), Config: func(c *config.Config) {
		c.Auth.Tokens = []config.Token{{Token: ownerToken, User: "olive", Owner: true}}
	}}
	servertest.EachStore(t, s, func(t *testing.T, ts *servertest.Server) {
		ask(t, ts, ownerToken, "write code")
		rs, _ := receipts(t, ts)
		if len(rs) != 1 || rs[0].AnsweredBy != "beta" {
			t.Fatalf("auto tie: %+v; want beta, declared before alpha", rs)
		}
		post(t, ts, "/owner/router/choice", `{"choice":"zed"}`, 200)
		ask(t, ts, ownerToken, "anything")
		rs, _ = receipts(t, ts)
		if rs[0].rungs() != "zed:harness_error,beta:" {
			t.Fatalf("next_harness rungs %s; want beta, declared after zed", rs[0].rungs())
		}
		var status struct{ Harnesses []struct{ Name string } }
		if err := jsonOf(ts.As(ownerToken).Get("/owner/router").Body, &status); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, h := range status.Harnesses {
			names = append(names, h.Name)
		}
		if len(names) != 4 || names[0] != "desk" || names[1] != "zed" || names[2] != "beta" || names[3] != "alpha" {
			t.Errorf("the owner's page lists %v; want the declared order", names)
		}
	})
}
