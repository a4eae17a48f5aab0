package main

// Tests of "harnest connect --a2a": the bridge against harnest's own A2A
// endpoints (1.0 and 0.3 JSON-RPC, with and without a card that names
// them), through the relay on both stores, with a credential from
// A2A_TOKEN, and a task waiting for input reported as no answer.

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// a2aCard is examples/hello's card with one JSON-RPC interface at path,
// of spec version (1.0 or 0.3).
func a2aCard(path, version string) map[string]any {
	return map[string]any{
		"name": "Hello", "description": "Echoes.", "version": "0.1.0",
		"supportedInterfaces": []any{map[string]any{
			"url": "http://127.0.0.1:1907" + path, "protocolBinding": "JSONRPC", "protocolVersion": version}},
		"capabilities":       map[string]any{"streaming": false},
		"defaultInputModes":  []any{"text/plain"},
		"defaultOutputModes": []any{"text/plain"},
		"skills": []any{map[string]any{"id": "echo", "name": "Echo", "description": "Echoes.",
			"tags": []any{"echo"}}},
	}
}

// a2aAgent is a harnest server of the echo agent serving card; publicURL
// makes the served card name the server's own address.
func a2aAgent(t *testing.T, card map[string]any, publicURL bool, configure func(*config.Config)) *servertest.Server {
	t.Helper()
	return servertest.Start(t, "", servertest.Setup{Card: card, PublicURL: publicURL, Config: configure})
}

// selfTest runs "harnest connect --self-test" with args and env, and
// returns its exit code, stdout and stderr.
func selfTest(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	rc := runConnect(context.Background(), append([]string{"--self-test", "--timeout", "20s"}, args...), envOf(env), &out, &errb)
	return rc, out.String(), errb.String()
}

func TestA2ABridgeHarnest(t *testing.T) {
	for _, c := range []struct {
		name, path, version string
		publicURL           bool
		cardSays            string // what the served card says of the endpoint
	}{
		{"v1.0, named by the card", "/a2a", "1.0", true, "1.0"},
		{"v0.3, named by the card", "/a2a/v03", "0.3", true, "0.3"},
		// The served card names 127.0.0.1:1907, not this server: the
		// bridge tries 1.0, is told the version is not served, asks in 0.3.
		{"v0.3, found by asking", "/a2a/v03", "0.3", false, ""},
		{"v1.0, card elsewhere", "/a2a", "1.0", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			agent := a2aAgent(t, a2aCard(c.path, c.version), c.publicURL, nil)
			b, err := newA2ABridge(agent.URL+c.path, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.cardVersion(context.Background()); got != c.cardSays {
				t.Fatalf("the card says %q of the endpoint, want %q", got, c.cardSays)
			}
			answer, err := b.answer(context.Background(), job{text: "hello bridge"})
			if err != nil || answer != "Echo: hello bridge" {
				t.Fatalf("answer %q, %v", answer, err)
			}
			if b.version != c.version {
				t.Fatalf("the bridge settled on %q, want %q", b.version, c.version)
			}
			// The command line's self-test goes the same way.
			rc, out, errs := selfTest(t, nil, "--a2a", agent.URL+c.path)
			if rc != 0 || !strings.Contains(out, "Echo: "+connectSelfTestQ) {
				t.Fatalf("self-test: %d %q %s", rc, out, errs)
			}
		})
	}
}

func TestA2ABridgeToken(t *testing.T) {
	const token = "a2a-agent-token-0123456789"
	agent := a2aAgent(t, a2aCard("/a2a", "1.0"), true, func(c *config.Config) {
		c.Auth.Tokens = []config.Token{{Token: token, User: "bob"}}
	})
	rc, out, errs := selfTest(t, map[string]string{"A2A_TOKEN": token}, "--a2a", agent.URL+"/a2a")
	if rc != 0 || !strings.Contains(out, "Echo: ") {
		t.Fatalf("with A2A_TOKEN: %d %q %s", rc, out, errs)
	}
	if strings.Contains(out+errs, token) {
		t.Fatal("the credential was printed")
	}
	rc, _, errs = selfTest(t, nil, "--a2a", agent.URL+"/a2a")
	if rc != 1 || !strings.Contains(errs, "Self-test failed") {
		t.Fatalf("without A2A_TOKEN: %d %s", rc, errs)
	}
	// There is no flag for the credential: it never goes on the command line.
	if rc, _, _ := selfTest(t, nil, "--a2a", agent.URL+"/a2a", "--a2a-token", token); rc != 2 {
		t.Fatalf("a credential flag was accepted: %d", rc)
	}
}

func TestA2ABridgeInputRequiredIsNoAnswer(t *testing.T) {
	for _, version := range []string{"1.0", "0.3"} {
		t.Run(version, func(t *testing.T) {
			path := map[string]string{"1.0": "/a2a", "0.3": "/a2a/v03"}[version]
			agent := a2aAgent(t, a2aCard(path, version), true, func(c *config.Config) { c.Spec.Backend.Echo.Approval = "send" })
			rc, out, errs := selfTest(t, nil, "--a2a", agent.URL+path)
			if rc != 1 || !strings.Contains(errs, "input-required") || !strings.Contains(errs, "no answer") {
				t.Fatalf("a task waiting for input: %d %q %s", rc, out, errs)
			}
		})
	}
}

// TestA2ABridgeThroughRelay answers relayed turns with harnest's own A2A
// endpoint on a second server, on both stores.
func TestA2ABridgeThroughRelay(t *testing.T) {
	for _, sc := range testutil.Stores(t) {
		t.Run(sc.Name, func(t *testing.T) {
			agent := a2aAgent(t, a2aCard("/a2a", "1.0"), true, nil)
			rr := newRelayReplica(t, sc.URL, &config.RelayBackend{Name: "Bridge", Kind: "cli"})
			code := rr.pairCode(t, "Bridge", "cli")
			c := rr.connect(t, code, "--name", "Bridge", "--kind", "cli", "--a2a", agent.URL+"/a2a")
			waitConnected(t, c)
			for _, q := range []string{"hello through the bridge", "a second question"} {
				status, v := rr.respond(t, q)
				if status != 200 || v["outputText"] != "Echo: "+q {
					t.Fatalf("turn %q: %d %v; connect: %s", q, status, v, c.stderr.String())
				}
			}
		})
	}
}
