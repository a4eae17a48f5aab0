package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLoadMinimalFolderAppliesDefaults(t *testing.T) {
	dir := writeFolder(t, minimalConfig, minimalCard, minimalInstructions)
	f := mustLoad(t, dir, nil)

	if !filepath.IsAbs(f.Dir) {
		t.Errorf("Dir = %q, want an absolute path", f.Dir)
	}
	c := f.Config
	if c.Metadata.Name != "my-agent" || c.Spec.Backend.Echo == nil || c.Spec.Backend.Exec != nil {
		t.Errorf("unexpected config: %+v", c)
	}
	h := c.Server.HTTP
	if h.Host != DefaultHost || h.Port != DefaultPort || h.AllowRemote ||
		h.RequestTimeoutSeconds != DefaultRequestTimeoutSeconds || h.MaxConcurrentRequests != DefaultMaxConcurrentRequests {
		t.Errorf("http defaults not applied: %+v", h)
	}
	if h.Addr() != "127.0.0.1:1907" {
		t.Errorf("Addr() = %q", h.Addr())
	}
	if c.Server.Limits.MaxRequestBytes != DefaultMaxRequestBytes {
		t.Errorf("maxRequestBytes = %v", c.Server.Limits.MaxRequestBytes)
	}
	if c.Server.Live {
		t.Errorf("live defaults to false")
	}
	for name, b := range map[string]*bool{"openapi": c.Server.OpenAPI, "agui": c.Server.AGUI, "playground": c.Server.Playground.Enabled} {
		if b == nil || !*b || !Enabled(b) {
			t.Errorf("%s should default to true", name)
		}
	}
	if c.Store.KeyPrefix != DefaultKeyPrefix || c.Store.Retention.ReceiptsSeconds != DefaultReceiptTTLSeconds || c.Store.Redis.URL != "" {
		t.Errorf("store defaults not applied: %+v", c.Store)
	}
	if len(c.Auth.Tokens) != 0 {
		t.Errorf("tokens = %v", c.Auth.Tokens)
	}
	if f.Instructions != minimalInstructions {
		t.Errorf("instructions = %q", f.Instructions)
	}
	if f.Card["name"] != "My Agent" {
		t.Errorf("card name = %v", f.Card["name"])
	}
}

func TestLoadFullConfig(t *testing.T) {
	config := `apiVersion: harnest.dev/v1alpha1
kind: Agent
metadata:
  name: full-agent
  displayName: Full Agent
spec:
  backend:
    exec:
      command: ["./agent.sh", "--flag"]
      dir: work
      env: {MODE: fast, EMPTY: ""}
      timeoutSeconds: 30
server:
  http:
    host: 0.0.0.0
    port: 8080
    allowRemote: true
    requestTimeoutSeconds: 1.5
    maxConcurrentRequests: 100
  limits:
    maxRequestBytes: 2MiB
  playground:
    enabled: false
  live: true
  openapi: false
  agui: false
auth:
  tokens:
    - {token: token-one, user: alice}
    - {token: token-two, user: bob}
store:
  redis:
    url: redis://user:pass@localhost:6379/2
  keyPrefix: "agents:full:"
  retention:
    receiptsSeconds: 60
`
	c := mustLoad(t, writeFolder(t, config, minimalCard, minimalInstructions), nil).Config
	exec := c.Spec.Backend.Exec
	if exec == nil || strings.Join(exec.Command, " ") != "./agent.sh --flag" || exec.Dir != "work" ||
		exec.Env["MODE"] != "fast" || len(exec.Env) != 2 || exec.TimeoutSeconds != 30 {
		t.Errorf("exec = %+v", exec)
	}
	h := c.Server.HTTP
	if h.Host != "0.0.0.0" || h.Port != 8080 || !h.AllowRemote || h.RequestTimeoutSeconds != 1.5 || h.MaxConcurrentRequests != 100 {
		t.Errorf("http = %+v", h)
	}
	if h.RequestTimeout().Milliseconds() != 1500 {
		t.Errorf("RequestTimeout() = %v", h.RequestTimeout())
	}
	if c.Server.Limits.MaxRequestBytes != 2*MiB {
		t.Errorf("maxRequestBytes = %v", c.Server.Limits.MaxRequestBytes)
	}
	// Explicit false survives defaulting.
	if Enabled(c.Server.Playground.Enabled) || Enabled(c.Server.OpenAPI) || Enabled(c.Server.AGUI) || !c.Server.Live {
		t.Errorf("flags = %+v", c.Server)
	}
	if len(c.Auth.Tokens) != 2 || c.Auth.Tokens[1] != (Token{Token: "token-two", User: "bob"}) {
		t.Errorf("tokens = %+v", c.Auth.Tokens)
	}
	if c.Store.KeyPrefix != "agents:full:" || c.Store.Retention.ReceiptsSeconds != 60 || c.Store.Retention.Receipts().Seconds() != 60 {
		t.Errorf("store = %+v", c.Store)
	}
}

func TestLoadAcceptsOtherForms(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		check func(c Config) bool
	}{
		{"max request bytes as integer", "server:\n  limits:\n    maxRequestBytes: 4096\n",
			func(c Config) bool { return c.Server.Limits.MaxRequestBytes == 4*KiB }},
		{"max request bytes as quoted digits", "server:\n  limits:\n    maxRequestBytes: \"2048\"\n",
			func(c Config) bool { return c.Server.Limits.MaxRequestBytes == 2*KiB }},
		{"max request bytes in GiB", "server:\n  limits:\n    maxRequestBytes: 1GiB\n",
			func(c Config) bool { return c.Server.Limits.MaxRequestBytes == GiB }},
		{"host ::1 without allowRemote", "server:\n  http:\n    host: \"::1\"\n",
			func(c Config) bool { return c.Server.HTTP.Addr() == "[::1]:1907" }},
		{"host localhost without allowRemote", "server:\n  http:\n    host: localhost\n",
			func(c Config) bool { return c.Server.HTTP.Host == "localhost" }},
		{"receipts 0 means default", "store:\n  retention:\n    receiptsSeconds: 0\n",
			func(c Config) bool { return c.Store.Retention.ReceiptsSeconds == DefaultReceiptTTLSeconds }},
		{"null sections keep defaults", "server:\nauth:\nstore: ~\n",
			func(c Config) bool { return c.Server.HTTP.Port == DefaultPort }},
		{"aliases", "metadata: &m\n  name: aliased\nx-unused: *m\n", nil},
		{"redis unix socket", "store:\n  redis:\n    url: unix:///tmp/redis.sock\n",
			func(c Config) bool { return c.Store.Redis.URL == "unix:///tmp/redis.sock" }},
		{"rediss", "store:\n  redis:\n    url: rediss://localhost:6380/0\n", nil},
		{"echo options", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "aliases" {
				// Unknown keys are still rejected when they hold aliases.
				probs := mustProblems(t, writeFolder(t, minimalConfig+tt.extra, minimalCard, minimalInstructions), nil)
				if !hasLine(probs, "x-unused: unknown field") {
					t.Errorf("problems:\n%v", probs)
				}
				return
			}
			c := mustLoad(t, writeFolder(t, minimalConfig+tt.extra, minimalCard, minimalInstructions), nil).Config
			if tt.check != nil && !tt.check(c) {
				t.Errorf("unexpected config: %+v", c)
			}
		})
	}
}

func TestLoadAliasValues(t *testing.T) {
	config := minimalConfig + "server:\n  http:\n    port: &p 2000\n" +
		"store:\n  retention:\n    receiptsSeconds: *p\n"
	c := mustLoad(t, writeFolder(t, config, minimalCard, minimalInstructions), nil).Config
	if c.Server.HTTP.Port != 2000 || c.Store.Retention.ReceiptsSeconds != 2000 {
		t.Errorf("aliases not followed: %+v", c)
	}
}

// replace returns minimalConfig with old replaced by new; the test fails if
// old is not there.
func replace(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(minimalConfig, old) {
		t.Fatalf("minimalConfig has no %q", old)
	}
	return strings.Replace(minimalConfig, old, new, 1)
}

func TestConfigProblems(t *testing.T) {
	withBackend := func(backend string) string {
		return "apiVersion: harnest.dev/v1alpha1\nkind: Agent\nmetadata:\n  name: a\nspec:\n  backend:\n" + backend
	}
	tests := []struct {
		name   string
		config func(t *testing.T) string
		env    map[string]string
		want   []string // one problem line must contain all of these
	}{
		// document shape
		{"empty file", func(*testing.T) string { return "" }, nil,
			[]string{"config.yaml: ", "no YAML document"}},
		{"comments only", func(*testing.T) string { return "# nothing\n" }, nil,
			[]string{"config.yaml: ", "no YAML document"}},
		{"several documents", func(*testing.T) string { return minimalConfig + "---\n" + minimalConfig }, nil,
			[]string{"config.yaml: ", "more than one YAML document"}},
		{"invalid yaml", func(*testing.T) string { return "apiVersion: [unclosed\n" }, nil,
			[]string{"config.yaml: invalid YAML"}},
		{"root is a list", func(*testing.T) string { return "- a\n- b\n" }, nil,
			[]string{"config.yaml: expected a mapping, got a list"}},
		{"root is null", func(*testing.T) string { return "---\n~\n" }, nil,
			[]string{"config.yaml: expected a mapping", "got null"}},
		{"unknown field", func(t *testing.T) string { return replace(t, "echo: {}", "echo:\n      delayy: 5") }, nil,
			[]string{"config.yaml: spec.backend.echo.delayy: unknown field", "delayMs"}},
		{"unknown top-level field", func(*testing.T) string { return minimalConfig + "extra: 1\n" }, nil,
			[]string{"config.yaml: extra: unknown field"}},
		{"duplicate key", func(t *testing.T) string {
			return replace(t, "  name: my-agent\n", "  name: my-agent\n  name: other\n")
		}, nil,
			[]string{"config.yaml: metadata.name: duplicate key"}},
		{"duplicate top-level section", func(*testing.T) string { return minimalConfig + "server: {}\nserver: {}\n" }, nil,
			[]string{"config.yaml: server: duplicate key"}},
		{"duplicate env key", func(*testing.T) string {
			return withBackend("    exec:\n      command: [x]\n      env:\n        A: one\n        A: two\n")
		}, nil, []string{"config.yaml: spec.backend.exec.env.A: duplicate key"}},
		{"non-string key", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    1907: port\n" }, nil,
			[]string{"config.yaml: server.http: mapping keys must be strings", "1907"}},
		{"non-string key in map", func(*testing.T) string {
			return withBackend("    exec:\n      command: [x]\n      env:\n        true: x\n")
		}, nil, []string{"config.yaml: spec.backend.exec.env: mapping keys must be strings"}},
		{"merge key", func(*testing.T) string { return minimalConfig + "server:\n  <<: {live: true}\n" }, nil,
			[]string{"config.yaml: server: merge keys"}},

		// types
		{"port not an integer", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    port: abc\n" }, nil,
			[]string{`config.yaml: server.http.port: expected an integer, got "abc"`}},
		{"port as float", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    port: 80.5\n" }, nil,
			[]string{`config.yaml: server.http.port: expected an integer, got 80.5`}},
		{"port overflows", func(*testing.T) string {
			return minimalConfig + "server:\n  http:\n    port: 99999999999999999999999\n"
		}, nil,
			[]string{`config.yaml: server.http.port: `}},
		{"bool as string", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    allowRemote: \"yes\"\n" }, nil,
			[]string{`config.yaml: server.http.allowRemote: expected true or false, got "yes"`}},
		{"bool as yes", func(*testing.T) string { return minimalConfig + "server:\n  live: yes\n" }, nil,
			[]string{`config.yaml: server.live: expected true or false`}},
		{"pointer bool as integer", func(*testing.T) string { return minimalConfig + "server:\n  openapi: 1\n" }, nil,
			[]string{`config.yaml: server.openapi: expected true or false, got 1`}},
		{"string as integer", func(*testing.T) string { return replace(t, "name: my-agent", "name: my-agent\n  displayName: 12") }, nil,
			[]string{`config.yaml: metadata.displayName: expected a string, got 12`, "quote"}},
		{"section as scalar", func(*testing.T) string { return minimalConfig + "server: on\n" }, nil,
			[]string{`config.yaml: server: expected a mapping, got "on"`}},
		{"section as list", func(*testing.T) string { return minimalConfig + "auth: [a]\n" }, nil,
			[]string{`config.yaml: auth: expected a mapping, got a list`}},
		{"list as scalar", func(*testing.T) string { return withBackend("    exec:\n      command: ./agent.sh\n") }, nil,
			[]string{`config.yaml: spec.backend.exec.command: expected a list, got "./agent.sh"`}},
		{"list item as mapping", func(*testing.T) string { return withBackend("    exec:\n      command: [{a: b}]\n") }, nil,
			[]string{`config.yaml: spec.backend.exec.command[0]: expected a string, got a mapping`}},
		{"tokens as mapping", func(*testing.T) string { return minimalConfig + "auth:\n  tokens: {a: b}\n" }, nil,
			[]string{`config.yaml: auth.tokens: expected a list, got a mapping`}},
		{"token item unknown field", func(*testing.T) string {
			return minimalConfig + "auth:\n  tokens:\n    - {token: abc, user: u, role: x}\n"
		}, nil,
			[]string{`config.yaml: auth.tokens[0].role: unknown field`}},

		// header
		{"wrong apiVersion", func(t *testing.T) string { return replace(t, "harnest.dev/v1alpha1", "harnest.dev/v1") }, nil,
			[]string{`config.yaml: apiVersion: must be "harnest.dev/v1alpha1", got "harnest.dev/v1"`}},
		{"missing apiVersion", func(t *testing.T) string { return replace(t, "apiVersion: harnest.dev/v1alpha1\n", "") }, nil,
			[]string{`config.yaml: apiVersion: required`}},
		{"wrong kind", func(t *testing.T) string { return replace(t, "kind: Agent", "kind: Server") }, nil,
			[]string{`config.yaml: kind: must be "Agent", got "Server"`}},
		{"missing kind", func(t *testing.T) string { return replace(t, "kind: Agent\n", "") }, nil,
			[]string{`config.yaml: kind: required`}},
		{"missing name", func(t *testing.T) string { return replace(t, "  name: my-agent\n", "  displayName: x\n") }, nil,
			[]string{`config.yaml: metadata.name: required`}},
		{"name not a DNS label", func(t *testing.T) string { return replace(t, "name: my-agent", "name: My_Agent") }, nil,
			[]string{`config.yaml: metadata.name: must be a DNS label`, `"My_Agent"`}},
		{"name starts with digit", func(t *testing.T) string { return replace(t, "name: my-agent", "name: 1agent") }, nil,
			[]string{`config.yaml: metadata.name: must be a DNS label`}},
		{"name too long", func(t *testing.T) string { return replace(t, "name: my-agent", "name: a"+strings.Repeat("b", 63)) }, nil,
			[]string{`config.yaml: metadata.name: must be a DNS label`}},

		// backend
		{"no backend", func(t *testing.T) string { return replace(t, "    echo: {}\n", "") }, nil,
			[]string{`config.yaml: spec.backend: set exactly one backend`, "echo", "exec"}},
		{"no spec", func(t *testing.T) string { return replace(t, "spec:\n  backend:\n    echo: {}\n", "") }, nil,
			[]string{`config.yaml: spec.backend: set exactly one backend`}},
		{"null echo", func(t *testing.T) string { return replace(t, "echo: {}", "echo:") }, nil,
			[]string{`config.yaml: spec.backend: set exactly one backend`, "echo: {}"}},
		{"both backends", func(*testing.T) string { return withBackend("    echo: {}\n    exec: {command: [x]}\n") }, nil,
			[]string{`config.yaml: spec.backend: set exactly one backend, found 2 of echo, exec, model, a2a, relay and router`}},
		{"unknown backend", func(*testing.T) string { return withBackend("    openai: {}\n") }, nil,
			[]string{`config.yaml: spec.backend.openai: unknown field (allowed: echo, exec, relay, model, a2a, router)`}},
		{"echo delay negative", func(*testing.T) string { return withBackend("    echo: {delayMs: -1}\n") }, nil,
			[]string{`config.yaml: spec.backend.echo.delayMs: must be between 0 and 60000`}},
		{"echo delay too long", func(*testing.T) string { return withBackend("    echo: {delayMs: 60001}\n") }, nil,
			[]string{`config.yaml: spec.backend.echo.delayMs: must be between 0 and 60000`}},
		{"exec without command", func(*testing.T) string { return withBackend("    exec: {dir: x}\n") }, nil,
			[]string{`config.yaml: spec.backend.exec.command: required`}},
		{"exec empty command", func(*testing.T) string { return withBackend("    exec: {command: []}\n") }, nil,
			[]string{`config.yaml: spec.backend.exec.command: required`}},
		{"exec empty program", func(*testing.T) string { return withBackend("    exec: {command: [\"\", arg]}\n") }, nil,
			[]string{`config.yaml: spec.backend.exec.command[0]: must name the program`}},
		{"exec negative timeout", func(*testing.T) string { return withBackend("    exec: {command: [x], timeoutSeconds: -1}\n") }, nil,
			[]string{`config.yaml: spec.backend.exec.timeoutSeconds: must be 0`}},
		{"exec bad env name", func(*testing.T) string { return withBackend("    exec: {command: [x], env: {\"1BAD\": x}}\n") }, nil,
			[]string{`config.yaml: spec.backend.exec.env.1BAD: not a valid environment variable name`}},

		// server
		{"port too large", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    port: 70000\n" }, nil,
			[]string{`config.yaml: server.http.port: must be between 1 and 65535`}},
		{"port zero", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    port: 0\n" }, nil,
			[]string{`config.yaml: server.http.port: must be between 1 and 65535`}},
		{"empty host", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    host: \"\"\n" }, nil,
			[]string{`config.yaml: server.http.host: must not be empty`}},
		{"remote host needs allowRemote", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    host: 0.0.0.0\n" }, nil,
			[]string{`config.yaml: server.http.host: "0.0.0.0" is not a loopback address`, "allowRemote: true"}},
		{"timeout zero", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    requestTimeoutSeconds: 0\n" }, nil,
			[]string{`config.yaml: server.http.requestTimeoutSeconds: must be greater than 0`}},
		{"timeout too long", func(*testing.T) string {
			return minimalConfig + "server:\n  http:\n    requestTimeoutSeconds: 86400.5\n"
		}, nil,
			[]string{`config.yaml: server.http.requestTimeoutSeconds: must be greater than 0 and at most 86400`}},
		{"timeout NaN", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    requestTimeoutSeconds: .nan\n" }, nil,
			[]string{`config.yaml: server.http.requestTimeoutSeconds: must be greater than 0`}},
		{"concurrency zero", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    maxConcurrentRequests: 0\n" }, nil,
			[]string{`config.yaml: server.http.maxConcurrentRequests: must be between 1 and 100000`}},
		{"concurrency too high", func(*testing.T) string {
			return minimalConfig + "server:\n  http:\n    maxConcurrentRequests: 100001\n"
		}, nil,
			[]string{`config.yaml: server.http.maxConcurrentRequests: must be between 1 and 100000`}},
		{"queue zero", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    maxQueuedRequests: 0\n" }, nil,
			[]string{`config.yaml: server.http.maxQueuedRequests: must be between 1 and 1000000`}},
		{"body timeout too long", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    bodyTimeoutSeconds: 3601\n" }, nil,
			[]string{`config.yaml: server.http.bodyTimeoutSeconds: must be greater than 0 and at most 3600 (one hour)`}},
		{"turns per user zero", func(*testing.T) string { return minimalConfig + "server:\n  limits:\n    maxTurnsPerUser: 0\n" }, nil,
			[]string{`config.yaml: server.limits.maxTurnsPerUser: must be between 1 and 100000`}},
		{"store timeout negative", func(*testing.T) string { return minimalConfig + "store:\n  redis:\n    timeoutSeconds: -1\n" }, nil,
			[]string{`config.yaml: store.redis.timeoutSeconds: must be greater than 0 and at most 60`}},
		{"liveness too long", func(*testing.T) string { return minimalConfig + "store:\n  livenessSeconds: 61\n" }, nil,
			[]string{`config.yaml: store.livenessSeconds: must be between 1 and 60`}},
		{"liveness past the lease", func(*testing.T) string { return minimalConfig + "store:\n  leaseSeconds: 5\n  livenessSeconds: 10\n" }, nil,
			[]string{`config.yaml: store.livenessSeconds: must be at most store.leaseSeconds (5)`}},
		{"attempts negative", func(*testing.T) string { return minimalConfig + "store:\n  maxAttempts: -1\n" }, nil,
			[]string{`config.yaml: store.maxAttempts: must be between 1 and 100`}},
		{"replica loss unknown", func(*testing.T) string { return minimalConfig + "  onReplicaLoss: retry\n" }, nil,
			[]string{`config.yaml: spec.onReplicaLoss: must be fail or rerun, got "retry"`}},
		{"request bytes too small", func(*testing.T) string { return minimalConfig + "server:\n  limits:\n    maxRequestBytes: 512\n" }, nil,
			[]string{`config.yaml: server.limits.maxRequestBytes: must be between 1KiB and 1GiB`}},
		{"request bytes too large", func(*testing.T) string { return minimalConfig + "server:\n  limits:\n    maxRequestBytes: 2GiB\n" }, nil,
			[]string{`config.yaml: server.limits.maxRequestBytes: must be between 1KiB and 1GiB`}},
		{"request bytes wrong unit", func(*testing.T) string { return minimalConfig + "server:\n  limits:\n    maxRequestBytes: 12MB\n" }, nil,
			[]string{`config.yaml: server.limits.maxRequestBytes: expected a positive integer or a size`, `"12MB"`}},
		{"request bytes zero string", func(*testing.T) string { return minimalConfig + "server:\n  limits:\n    maxRequestBytes: \"0\"\n" }, nil,
			[]string{`config.yaml: server.limits.maxRequestBytes: expected a positive integer or a size`}},
		{"request bytes negative", func(*testing.T) string { return minimalConfig + "server:\n  limits:\n    maxRequestBytes: -1\n" }, nil,
			[]string{`config.yaml: server.limits.maxRequestBytes: expected a positive integer or a size`}},
		{"request bytes overflow", func(*testing.T) string {
			return minimalConfig + "server:\n  limits:\n    maxRequestBytes: 99999999999999999GiB\n"
		}, nil, []string{`config.yaml: server.limits.maxRequestBytes: size is too large`}},
		{"request bytes as list", func(*testing.T) string { return minimalConfig + "server:\n  limits:\n    maxRequestBytes: [1]\n" }, nil,
			[]string{`config.yaml: server.limits.maxRequestBytes: expected an integer or a size`, "got a list"}},

		// auth
		{"empty token", func(*testing.T) string { return minimalConfig + "auth:\n  tokens:\n    - {token: \"\", user: alice}\n" }, nil,
			[]string{`config.yaml: auth.tokens[0].token: must not be empty`}},
		{"missing user", func(*testing.T) string { return minimalConfig + "auth:\n  tokens:\n    - {token: abc}\n" }, nil,
			[]string{`config.yaml: auth.tokens[0].user: must not be empty`}},
		{"static user named like a JWT user", func(*testing.T) string {
			return minimalConfig + "auth:\n  tokens:\n    - {token: t-one, user: \"jwt:alice\"}\n"
		}, nil, []string{`config.yaml: auth.tokens[0].user: must not start with "jwt:"`, "auth.jwt"}},
		{"duplicate token", func(*testing.T) string {
			return minimalConfig + "auth:\n  tokens:\n    - {token: t-one, user: a}\n    - {token: t-two, user: b}\n    - {token: t-one, user: c}\n"
		}, nil, []string{`config.yaml: auth.tokens[2].token: duplicate token`, "auth.tokens[0]"}},

		// store
		{"redis url wrong scheme", func(*testing.T) string { return minimalConfig + "store:\n  redis:\n    url: http://localhost:6379\n" }, nil,
			[]string{`config.yaml: store.redis.url: must start with redis://, rediss:// or unix://`}},
		{"redis url bad database", func(*testing.T) string {
			return minimalConfig + "store:\n  redis:\n    url: redis://localhost/notanumber\n"
		}, nil,
			[]string{`config.yaml: store.redis.url: invalid database number`}},
		{"redis url unparsable", func(*testing.T) string { return minimalConfig + "store:\n  redis:\n    url: \"redis://[::1\"\n" }, nil,
			[]string{`config.yaml: store.redis.url: not a valid URL`}},
		{"negative retention", func(*testing.T) string { return minimalConfig + "store:\n  retention:\n    receiptsSeconds: -1\n" }, nil,
			[]string{`config.yaml: store.retention.receiptsSeconds: must be 0`}},

		// environment
		{"unset variable", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    port: ${PORT}\n" }, nil,
			[]string{`config.yaml: server.http.port: environment variable PORT is not set`}},
		{"env not an integer", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    port: ${PORT}\n" },
			map[string]string{"PORT": "eighty"}, []string{`config.yaml: server.http.port: expected an integer, but the value of ${PORT} is not`}},
		{"env integer out of range", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    port: ${PORT}\n" },
			map[string]string{"PORT": "70000"}, []string{`config.yaml: server.http.port: must be between 1 and 65535`}},
		{"env bool not true or false", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    allowRemote: ${REMOTE}\n" },
			map[string]string{"REMOTE": "yes"}, []string{`config.yaml: server.http.allowRemote: expected true or false, but the value of ${REMOTE} is not`}},
		{"env bool capitalised", func(*testing.T) string { return minimalConfig + "server:\n  live: ${LIVE}\n" },
			map[string]string{"LIVE": "True"}, []string{`config.yaml: server.live: expected true or false`}},
		{"env number invalid", func(*testing.T) string { return minimalConfig + "server:\n  http:\n    requestTimeoutSeconds: ${T}\n" },
			map[string]string{"T": "NaN"}, []string{`config.yaml: server.http.requestTimeoutSeconds: expected a number, but the value of ${T} is not`}},
		{"env size invalid", func(*testing.T) string { return minimalConfig + "server:\n  limits:\n    maxRequestBytes: ${SIZE}\n" },
			map[string]string{"SIZE": "lots"}, []string{`config.yaml: server.limits.maxRequestBytes: the value of ${SIZE} is not a valid size`}},
		{"env in a list", func(*testing.T) string { return withBackend("    exec:\n      command:\n        - ${PROGRAM}\n") }, nil,
			[]string{`config.yaml: spec.backend.exec.command[0]: environment variable PROGRAM is not set`}},
		{"env as a mapping key is not resolved", func(*testing.T) string { return minimalConfig + "server:\n  ${KEY}: true\n" },
			map[string]string{"KEY": "live"}, []string{"config.yaml: server.${KEY}: unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFolder(t, tt.config(t), minimalCard, minimalInstructions)
			probs := mustProblems(t, dir, tt.env)
			if !hasLine(probs, tt.want...) {
				t.Errorf("no problem line contains all of %q; got:\n%v", tt.want, probs)
			}
		})
	}
}

func TestProblemsAreAllReported(t *testing.T) {
	config := `apiVersion: v2
kind: Agent
metadata:
  name: Bad Name
spec:
  backend: {}
server:
  http:
    port: 0
    portt: 1
    maxConcurrentRequests: lots
`
	card := "name: x\n"
	probs := mustProblems(t, writeFolder(t, config, card, "  \n"), nil)
	for _, want := range []string{
		"config.yaml: apiVersion:",
		"config.yaml: metadata.name:",
		"config.yaml: spec.backend:",
		"config.yaml: server.http.port: must be between",
		"config.yaml: server.http.portt: unknown field",
		"config.yaml: server.http.maxConcurrentRequests: expected an integer",
		"agent-card.yaml: description: required",
		"agent-card.yaml: skills: required",
		"instructions.md: is empty",
	} {
		if !hasLine(probs, want) {
			t.Errorf("missing %q in:\n%v", want, probs)
		}
	}
	// A value with a type error is reported once, not again by validation.
	n := 0
	for _, line := range probs.Lines() {
		if strings.HasPrefix(line, "config.yaml: server.http.maxConcurrentRequests") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("maxConcurrentRequests reported %d times:\n%v", n, probs)
	}
	if got := strings.Count(probs.Error(), "\n") + 1; got != probs.Len() {
		t.Errorf("Error() has %d lines for %d problems", got, probs.Len())
	}
	if len(probs.Items()) != probs.Len() {
		t.Errorf("Items() and Len() disagree")
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "config.yaml", Path: "server.http.port", Message: "must be between 1 and 65535"}, "config.yaml: server.http.port: must be between 1 and 65535"},
		{Problem{File: "instructions.md", Message: "is empty"}, "instructions.md: is empty"},
		{Problem{Message: "agent folder missing"}, "agent folder missing"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestEnvResolution(t *testing.T) {
	config := `apiVersion: ${API}
kind: Agent
metadata:
  name: ${NAME}
  displayName: "literal ${NAME} and $NAME stay as text"
spec:
  backend:
    exec:
      command: ["${PROGRAM}", "a${NAME}", "$NAME"]
      env: {TOKEN: "${SECRET}"}
      timeoutSeconds: ${TIMEOUT}
server:
  http:
    host: ${HOST}
    port: ${PORT}
    allowRemote: ${REMOTE}
    requestTimeoutSeconds: "${REQUEST_TIMEOUT}"
  limits:
    maxRequestBytes: ${SIZE}
  openapi: ${OPENAPI}
auth:
  tokens:
    - token: ${SECRET}
      user: ${USER_NAME}
store:
  redis:
    url: ${REDIS_URL}
`
	env := map[string]string{
		"API": APIVersion, "NAME": "env-agent", "PROGRAM": "./run.sh", "SECRET": "s3cret-token",
		"TIMEOUT": "12", "HOST": "0.0.0.0", "PORT": "9090", "REMOTE": "true", "REQUEST_TIMEOUT": "2.5",
		"SIZE": "2MiB", "OPENAPI": "false", "USER_NAME": "alice", "REDIS_URL": "redis://localhost:6379/1",
	}
	c := mustLoad(t, writeFolder(t, config, minimalCard, minimalInstructions), env).Config
	if c.APIVersion != APIVersion || c.Metadata.Name != "env-agent" {
		t.Errorf("strings not resolved: %+v", c.Metadata)
	}
	if c.Metadata.DisplayName != "literal ${NAME} and $NAME stay as text" {
		t.Errorf("partial reference changed: %q", c.Metadata.DisplayName)
	}
	if got := strings.Join(c.Spec.Backend.Exec.Command, " "); got != "./run.sh a${NAME} $NAME" {
		t.Errorf("command = %q", got)
	}
	if c.Spec.Backend.Exec.Env["TOKEN"] != "s3cret-token" || c.Spec.Backend.Exec.TimeoutSeconds != 12 {
		t.Errorf("exec = %+v", c.Spec.Backend.Exec)
	}
	h := c.Server.HTTP
	if h.Host != "0.0.0.0" || h.Port != 9090 || !h.AllowRemote || h.RequestTimeoutSeconds != 2.5 {
		t.Errorf("http = %+v", h)
	}
	if c.Server.Limits.MaxRequestBytes != 2*MiB || Enabled(c.Server.OpenAPI) {
		t.Errorf("server = %+v", c.Server)
	}
	if c.Auth.Tokens[0] != (Token{Token: "s3cret-token", User: "alice"}) || c.Store.Redis.URL != env["REDIS_URL"] {
		t.Errorf("auth/store = %+v %+v", c.Auth, c.Store)
	}
}

func TestUnsetVariableMessage(t *testing.T) {
	config := minimalConfig + `server:
  http:
    host: ${HOST}
    port: ${MISSING_PORT}
    allowRemote: ${REMOTE}
`
	env := map[string]string{"HOST": "value-of-host.example", "REMOTE": "true", "OTHER": "value-of-other"}
	probs := mustProblems(t, writeFolder(t, config, minimalCard, minimalInstructions), env)
	if !hasLine(probs, "server.http.port", "MISSING_PORT") {
		t.Errorf("message must name the variable and the path:\n%v", probs)
	}
	for _, value := range env {
		if strings.Contains(probs.Error(), value) {
			t.Errorf("message leaks the value %q:\n%v", value, probs)
		}
	}
}

func TestSecretsAreNeverPrinted(t *testing.T) {
	const secret = "SECRET_TOKEN_VALUE_123"
	tests := []struct {
		name   string
		config string
		env    map[string]string
	}{
		{"duplicate token from env", minimalConfig + `server:
  http:
    port: 0
auth:
  tokens:
    - {token: "${TOKEN}", user: alice}
    - {token: "${TOKEN}", user: bob}
`, map[string]string{"TOKEN": secret}},
		{"env value of the wrong type", minimalConfig + "server:\n  http:\n    port: ${TOKEN}\n    maxConcurrentRequests: ${TOKEN}\n    allowRemote: ${TOKEN}\n  limits:\n    maxRequestBytes: ${TOKEN}\n",
			map[string]string{"TOKEN": secret}},
		{"env value in a checked string", `apiVersion: ${TOKEN}
kind: ${TOKEN}
metadata:
  name: ${TOKEN}
spec:
  backend:
    echo: {}
server:
  http:
    host: ${TOKEN}
store:
  redis:
    url: ${TOKEN}
`, map[string]string{"TOKEN": secret}},
		{"literal token of the wrong type", minimalConfig + "auth:\n  tokens:\n    - {token: [" + secret + "], user: a}\n    - {token: 123456789, user: b}\n", nil},
		{"redis url with a password", minimalConfig + "store:\n  redis:\n    url: http://user:" + secret + "@localhost/\n", nil},
		{"redis url from env", minimalConfig + "store:\n  redis:\n    url: ${URL}\n", map[string]string{"URL": "redis://user:" + secret + "@host/x/y"}},
		{"exec env of the wrong type", "apiVersion: harnest.dev/v1alpha1\nkind: Agent\nmetadata:\n  name: a\nspec:\n  backend:\n    exec:\n      command: [x]\n      env: {KEY: 123456789}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probs := mustProblems(t, writeFolder(t, tt.config, minimalCard, minimalInstructions), tt.env)
			if strings.Contains(probs.Error(), secret) || strings.Contains(probs.Error(), "123456789") {
				t.Errorf("secret printed:\n%v", probs)
			}
		})
	}
}

func TestFileProblems(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"missing config", func(t *testing.T, dir string) { remove(t, dir, configFile) }, "config.yaml: file is missing"},
		{"missing card", func(t *testing.T, dir string) { remove(t, dir, cardFile) }, "agent-card.yaml: file is missing"},
		{"missing instructions", func(t *testing.T, dir string) { remove(t, dir, instructionsFile) }, "instructions.md: file is missing"},
		{"config is a symlink", func(t *testing.T, dir string) {
			target := filepath.Join(t.TempDir(), "real.yaml")
			write(t, target, minimalConfig)
			remove(t, dir, configFile)
			if err := os.Symlink(target, filepath.Join(dir, configFile)); err != nil {
				t.Skip("symlinks not supported:", err)
			}
		}, "config.yaml: is a symbolic link"},
		{"card is a directory", func(t *testing.T, dir string) {
			remove(t, dir, cardFile)
			if err := os.Mkdir(filepath.Join(dir, cardFile), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "agent-card.yaml: is not a regular file"},
		{"config too large", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, configFile), minimalConfig+"#"+strings.Repeat("x", maxConfigBytes)+"\n")
		}, "config.yaml: file is larger than 64KiB"},
		{"card too large", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, cardFile), minimalCard+"#"+strings.Repeat("x", maxCardBytes)+"\n")
		}, "agent-card.yaml: file is larger than 4MiB"},
		{"empty instructions", func(t *testing.T, dir string) { write(t, filepath.Join(dir, instructionsFile), "") }, "instructions.md: is empty"},
		{"blank instructions", func(t *testing.T, dir string) { write(t, filepath.Join(dir, instructionsFile), " \n\t\n") }, "instructions.md: is empty"},
		{"instructions not UTF-8", func(t *testing.T, dir string) { write(t, filepath.Join(dir, instructionsFile), "caf\xe9\n") }, "instructions.md: is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFolder(t, minimalConfig, minimalCard, minimalInstructions)
			tt.setup(t, dir)
			probs := mustProblems(t, dir, nil)
			if !hasLine(probs, tt.want) {
				t.Errorf("want %q in:\n%v", tt.want, probs)
			}
		})
	}
}

func TestConfigAtSizeLimitLoads(t *testing.T) {
	padding := maxConfigBytes - len(minimalConfig) - 2
	config := minimalConfig + "#" + strings.Repeat("x", padding) + "\n"
	if len(config) != maxConfigBytes {
		t.Fatalf("test setup: %d bytes", len(config))
	}
	mustLoad(t, writeFolder(t, config, minimalCard, minimalInstructions), nil)
}

func TestFolderProblems(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	probs := mustProblems(t, missing, nil)
	if !hasLine(probs, "does not exist") {
		t.Errorf("got:\n%v", probs)
	}
	file := filepath.Join(t.TempDir(), "file")
	write(t, file, "x")
	probs = mustProblems(t, file, nil)
	if !hasLine(probs, "is not a directory") {
		t.Errorf("got:\n%v", probs)
	}
}

func TestLoadUsesProcessEnvironment(t *testing.T) {
	t.Setenv("HARNEST_TEST_PORT", "4242")
	config := minimalConfig + "server:\n  http:\n    port: ${HARNEST_TEST_PORT}\n"
	f, err := Load(writeFolder(t, config, minimalCard, minimalInstructions))
	if err != nil {
		t.Fatal(err)
	}
	if f.Config.Server.HTTP.Port != 4242 {
		t.Errorf("port = %d", f.Config.Server.HTTP.Port)
	}
}

func TestCardIsJSONReady(t *testing.T) {
	card := minimalCard + `provider:
  organization: Example
  url: https://example.com
iconUrl: https://example.com/icon.png
securitySchemes:
  bearer:
    httpAuthSecurityScheme: {scheme: Bearer}
extra:
  count: 3
  ratio: 0.5
  when: 2024-01-02
  nested: [[1, 2], {a: null}]
`
	f := mustLoad(t, writeFolder(t, minimalConfig, card, minimalInstructions), nil)
	data, err := json.Marshal(f.Card)
	if err != nil {
		t.Fatalf("card is not JSON-ready: %v", err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	extra := back["extra"].(map[string]any)
	if extra["when"] != "2024-01-02" || extra["count"] != float64(3) {
		t.Errorf("extra = %v", extra)
	}
	if _, ok := f.Card["provider"].(map[string]any); !ok {
		t.Errorf("provider is %T", f.Card["provider"])
	}
	iface := f.Card["supportedInterfaces"].([]any)[0].(map[string]any)
	if iface["protocolVersion"] != "1.0" {
		t.Errorf("protocolVersion = %v", iface["protocolVersion"])
	}
}

func TestCardProblems(t *testing.T) {
	set := func(t *testing.T, old, new string) string {
		t.Helper()
		if !strings.Contains(minimalCard, old) {
			t.Fatalf("minimalCard has no %q", old)
		}
		return strings.Replace(minimalCard, old, new, 1)
	}
	tests := []struct {
		name string
		card func(t *testing.T) string
		want string
	}{
		{"empty", func(*testing.T) string { return "" }, "agent-card.yaml: file has no YAML document"},
		{"list", func(*testing.T) string { return "- a\n" }, "agent-card.yaml: expected a mapping"},
		{"two documents", func(*testing.T) string { return minimalCard + "---\n" + minimalCard }, "agent-card.yaml: file holds more than one YAML document"},
		{"duplicate key", func(*testing.T) string { return minimalCard + "name: again\n" }, "agent-card.yaml: name: duplicate key"},
		{"nested duplicate key", func(t *testing.T) string {
			return set(t, "  streaming: true\n", "  streaming: true\n  streaming: false\n")
		}, "agent-card.yaml: capabilities.streaming: duplicate key"},
		{"non-string key", func(*testing.T) string { return minimalCard + "extra:\n  1: one\n" }, "agent-card.yaml: extra: mapping keys must be strings"},
		{"infinite number", func(*testing.T) string { return minimalCard + "extra: .inf\n" }, "agent-card.yaml: extra: must be a finite number"},
		{"recursive alias", func(*testing.T) string { return minimalCard + "extra: &x [*x]\n" }, "agent-card.yaml: extra[0]"},
		{"missing name", func(t *testing.T) string { return set(t, "name: My Agent\n", "") }, "agent-card.yaml: name: required"},
		{"empty description", func(t *testing.T) string { return set(t, "description: Answers questions.", `description: ""`) }, "agent-card.yaml: description: must not be empty"},
		{"version as number", func(t *testing.T) string { return set(t, "version: 1.0.0", "version: 2") }, "agent-card.yaml: version: expected a string, got 2"},
		{"no interfaces key", func(t *testing.T) string {
			return set(t, "supportedInterfaces:\n  - url: http://127.0.0.1:1907\n    protocolBinding: HTTP+JSON\n    protocolVersion: \"1.0\"\n", "")
		}, "agent-card.yaml: supportedInterfaces: required"},
		{"no interfaces", func(t *testing.T) string {
			return set(t, "supportedInterfaces:\n  - url: http://127.0.0.1:1907\n    protocolBinding: HTTP+JSON\n    protocolVersion: \"1.0\"\n", "supportedInterfaces: []\n")
		}, "agent-card.yaml: supportedInterfaces: needs at least one interface"},
		{"interface not a mapping", func(t *testing.T) string {
			return set(t, "  - url: http://127.0.0.1:1907\n    protocolBinding: HTTP+JSON\n    protocolVersion: \"1.0\"\n", "  - http://x\n")
		}, "agent-card.yaml: supportedInterfaces[0]: expected a mapping"},
		{"relative url", func(t *testing.T) string { return set(t, "url: http://127.0.0.1:1907", "url: /a2a") }, "agent-card.yaml: supportedInterfaces[0].url: must be an absolute URL"},
		{"missing binding", func(t *testing.T) string { return set(t, "    protocolBinding: HTTP+JSON\n", "") }, "agent-card.yaml: supportedInterfaces[0].protocolBinding: required"},
		{"unquoted version", func(t *testing.T) string { return set(t, `protocolVersion: "1.0"`, "protocolVersion: 1.0") }, "agent-card.yaml: supportedInterfaces[0].protocolVersion: expected a string"},
		{"bad version", func(t *testing.T) string { return set(t, `protocolVersion: "1.0"`, `protocolVersion: "v1"`) }, "agent-card.yaml: supportedInterfaces[0].protocolVersion: must look like"},
		{"missing version", func(t *testing.T) string { return set(t, "    protocolVersion: \"1.0\"\n", "") }, "agent-card.yaml: supportedInterfaces[0].protocolVersion: required"},
		{"missing capabilities", func(t *testing.T) string { return set(t, "capabilities:\n  streaming: true\n", "") }, "agent-card.yaml: capabilities: required"},
		{"capabilities a list", func(t *testing.T) string {
			return set(t, "capabilities:\n  streaming: true\n", "capabilities: [streaming]\n")
		}, "agent-card.yaml: capabilities: expected a mapping"},
		{"streaming not a bool", func(t *testing.T) string { return set(t, "streaming: true", "streaming: \"yes\"") }, "agent-card.yaml: capabilities.streaming: expected true or false"},
		{"input modes empty", func(t *testing.T) string { return set(t, "defaultInputModes: [text/plain]", "defaultInputModes: []") }, "agent-card.yaml: defaultInputModes: needs at least one item"},
		{"output modes missing", func(t *testing.T) string { return set(t, "defaultOutputModes: [text/plain]\n", "") }, "agent-card.yaml: defaultOutputModes: required"},
		{"mode not a string", func(t *testing.T) string {
			return set(t, "defaultOutputModes: [text/plain]", "defaultOutputModes: [1]")
		}, "agent-card.yaml: defaultOutputModes[0]: expected a non-empty string"},
		{"skills missing", func(t *testing.T) string {
			return set(t, "skills:\n  - id: respond\n    name: Respond\n    description: Answers a message.\n    tags: [chat]\n", "")
		}, "agent-card.yaml: skills: required"},
		{"skill without id", func(t *testing.T) string { return set(t, "  - id: respond\n    name", "  - name") }, "agent-card.yaml: skills[0].id: required"},
		{"skill without tags", func(t *testing.T) string { return set(t, "    tags: [chat]\n", "") }, "agent-card.yaml: skills[0].tags: required"},
		{"skill with empty tags", func(t *testing.T) string { return set(t, "tags: [chat]", "tags: []") }, "agent-card.yaml: skills[0].tags: needs at least one item"},
		{"skill without description", func(t *testing.T) string { return set(t, "    description: Answers a message.\n", "") }, "agent-card.yaml: skills[0].description: required"},
		{"duplicate skill id", func(*testing.T) string {
			return minimalCard + "  - id: respond\n    name: Again\n    description: Same id.\n    tags: [x]\n"
		}, `agent-card.yaml: skills[1].id: duplicate skill id "respond"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probs := mustProblems(t, writeFolder(t, minimalConfig, tt.card(t), minimalInstructions), nil)
			if !hasLine(probs, tt.want) {
				t.Errorf("want %q in:\n%v", tt.want, probs)
			}
		})
	}
}

func TestCardEnvReferencesStayLiteral(t *testing.T) {
	card := strings.Replace(minimalCard, "name: My Agent", "name: ${AGENT_NAME}", 1)
	f := mustLoad(t, writeFolder(t, minimalConfig, card, minimalInstructions), map[string]string{"AGENT_NAME": "resolved"})
	if f.Card["name"] != "${AGENT_NAME}" {
		t.Errorf("card name = %v", f.Card["name"])
	}
}

func TestCardAliasBomb(t *testing.T) {
	// Each level doubles the previous one: without a node budget this
	// would expand to 2^40 nodes.
	var b strings.Builder
	b.WriteString(minimalCard)
	b.WriteString("l0: &l0 [x, x]\n")
	for i := 1; i <= 40; i++ {
		b.WriteString("l" + strconv.Itoa(i) + ": &l" + strconv.Itoa(i) + " [*l" + strconv.Itoa(i-1) + ", *l" + strconv.Itoa(i-1) + "]\n")
	}
	probs := mustProblems(t, writeFolder(t, minimalConfig, b.String(), minimalInstructions), nil)
	if !hasLine(probs, "agent-card.yaml", "too large after expanding aliases") {
		t.Errorf("got:\n%v", probs)
	}
}

func remove(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
