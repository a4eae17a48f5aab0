package main

// End-to-end tests of the relay with real processes: "harnest serve" with
// spec.backend.relay, "harnest pair" creating the code and "harnest
// connect --exec" answering turns, on one replica and across two replicas
// on one real Redis.

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

const relayE2EOwnerToken = "token-relay-e2e-owner-0123456789"

// relayFolder copies examples/hello with spec.backend.relay for "My CLI"
// (cli), a key prefix unique to t and, when withAuth, an owner token.
func relayFolder(t *testing.T, withAuth bool) string {
	t.Helper()
	dir := agentFolder(t, "", prefixed(t))
	path := filepath.Join(dir, "config.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(b), "echo: {}", `relay: {name: "My CLI", kind: cli}`, 1)
	if withAuth {
		cfg += "auth:\n  tokens:\n    - token: " + relayE2EOwnerToken + "\n      user: owner\n      owner: true\n"
	}
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// relayEnv is childEnv without any relay secret the test did not ask for,
// plus extra.
func relayEnv(extra ...string) []string {
	var env []string
	for _, kv := range childEnv() {
		if strings.HasPrefix(kv, "HARNEST_TOKEN=") || strings.HasPrefix(kv, "HARNEST_PAIRING_CODE=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

var pairingCodeRE = regexp.MustCompile(`^[A-Z0-9]{4}(-[A-Z0-9]{4})+$`)

// pairCLI runs the real "harnest pair" and returns the code it printed.
func pairCLI(t *testing.T, server, token string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, harnestBin, "pair", "--server", server, "--name", "My CLI", "--kind", "cli")
	var extra []string
	if token != "" {
		extra = append(extra, "HARNEST_TOKEN="+token)
	}
	cmd.Env = relayEnv(extra...)
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("harnest pair: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	code := strings.TrimSuffix(out, "\n")
	if strings.Contains(code, "\n") || !pairingCodeRE.MatchString(code) {
		t.Fatalf("harnest pair printed %q, want the code alone on one line (stderr %q)", out, stderr.String())
	}
	return code
}

// connectProc is one running "harnest connect".
type connectProc struct {
	cmd    *exec.Cmd
	stdout *lockedBuffer
	stderr *lockedBuffer
	exited chan struct{}
}

// startConnect runs the real "harnest connect --exec 'tr a-z A-Z'" with the
// code in HARNEST_PAIRING_CODE and waits until it has paired. It is
// stopped (SIGTERM, then SIGKILL) when the test ends.
func startConnect(t *testing.T, server, code string) *connectProc {
	t.Helper()
	return startConnectExec(t, server, code, "tr a-z A-Z")
}

// startConnectExec is startConnect with this --exec command line.
func startConnectExec(t *testing.T, server, code, execLine string) *connectProc {
	t.Helper()
	cmd := exec.Command(harnestBin, "connect", "--server", server, "--name", "My CLI", "--kind", "cli", "--exec", execLine)
	cmd.Env = relayEnv("HARNEST_PAIRING_CODE=" + code)
	c := &connectProc{cmd: cmd, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start harnest connect: %v", err)
	}
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		c.stop()
		if t.Failed() {
			t.Logf("harnest connect\nstdout:\n%s\nstderr:\n%s", c.stdout, c.stderr)
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(c.stderr.String(), "waiting for questions") {
		select {
		case <-c.exited:
			t.Fatalf("harnest connect exited %d before pairing: %s", cmd.ProcessState.ExitCode(), c.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("harnest connect did not pair within 15s: %s", c.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c
}

// stop sends SIGTERM, waits up to 5 s, then kills.
func (c *connectProc) stop() {
	select {
	case <-c.exited:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// relayTurn posts a turn and waits (bounded by h.do's 30 s) for the outside
// agent's answer.
func relayTurn(t *testing.T, h *harnest, input, token string) map[string]any {
	t.Helper()
	var headers []string
	if token != "" {
		headers = []string{"Authorization", "Bearer " + token}
	}
	start := time.Now()
	r := h.post(t, "/responses", `{"input":"`+input+`"}`, headers...)
	mustStatus(t, r, http.StatusOK)
	v := r.JSON(t)
	if v["status"] != "completed" {
		t.Fatalf("status %v, want completed: %s", v["status"], r.Body)
	}
	t.Logf("relayed turn %q answered in %v", input, time.Since(start).Round(time.Millisecond))
	return v
}

// mustNotLeak fails when the pairing code (with or without dashes) or a
// session token ("hrn_…") appears in out.
func mustNotLeak(t *testing.T, what, out, code string) {
	t.Helper()
	for _, s := range []string{code, strings.ReplaceAll(code, "-", ""), "hrn_"} {
		if strings.Contains(out, s) {
			t.Errorf("%s output contains a secret (%q):\n%s", what, s, out)
		}
	}
}

func TestRelayEndToEnd(t *testing.T) {
	t.Parallel()
	needProgram(t, "tr")
	dir := relayFolder(t, false)
	h := startHarnest(t, dir, nil)

	code := pairCLI(t, h.URL, "") // no auth: the local user is the owner
	c := startConnect(t, h.URL, code)

	v := relayTurn(t, h, "hello relay", "")
	if v["outputText"] != "HELLO RELAY" {
		t.Fatalf("outputText %q, want %q: %v", v["outputText"], "HELLO RELAY", v)
	}
	// The code was used once: pairing again with it fails.
	r := h.post(t, "/api/outside-agents/v1/pairings/exchange", `{"code":"`+code+`","card":{"name":"My CLI","kind":"cli"}}`)
	mustStatus(t, r, http.StatusUnauthorized)

	c.stop()
	h.mustStop(t)
	mustNotLeak(t, "connect", c.stdout.String()+c.stderr.String(), code)
	mustNotLeak(t, "serve", h.stdout.String()+h.stderr.String(), code)
}

func TestRelayAcrossTwoReplicas(t *testing.T) {
	t.Parallel()
	needProgram(t, "tr")
	url := realRedis(t)
	dir := relayFolder(t, true) // same folder, same key prefix on both
	a := startHarnest(t, dir, nil, "--redis-url", url)
	b := startHarnest(t, dir, nil, "--redis-url", url)

	// Without the owner's token, pair is refused.
	cmd := exec.Command(harnestBin, "pair", "--server", a.URL, "--name", "My CLI", "--kind", "cli")
	cmd.Env = relayEnv()
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("harnest pair without HARNEST_TOKEN succeeded: %s", out)
	}

	code := pairCLI(t, a.URL, relayE2EOwnerToken) // created on A
	c := startConnect(t, b.URL, code)             // exchanged and polled on B

	for _, q := range []string{"hello relay", "second turn"} {
		v := relayTurn(t, a, q, relayE2EOwnerToken) // posted on A
		if want := strings.ToUpper(q); v["outputText"] != want {
			t.Fatalf("outputText %q, want %q: %v", v["outputText"], want, v)
		}
	}
	// A lists the participant B paired.
	r := a.get(t, "/owner/outside-agents/participants", "Authorization", "Bearer "+relayE2EOwnerToken)
	mustStatus(t, r, http.StatusOK)
	if !strings.Contains(string(r.Body), `"name":"My CLI"`) || !strings.Contains(string(r.Body), `"state":"active"`) {
		t.Fatalf("participants on A: %s", r.Body)
	}

	c.stop()
	a.mustStop(t)
	b.mustStop(t)
	mustNotLeak(t, "connect", c.stdout.String()+c.stderr.String(), code)
	mustNotLeak(t, "serve A", a.stdout.String()+a.stderr.String(), code)
	mustNotLeak(t, "serve B", b.stdout.String()+b.stderr.String(), code)
	for _, h := range []*harnest{a, b} {
		if out := h.stdout.String() + h.stderr.String(); strings.Contains(out, relayE2EOwnerToken) {
			t.Errorf("serve output contains the owner token:\n%s", out)
		}
	}
}
