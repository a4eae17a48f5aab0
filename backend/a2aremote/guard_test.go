package a2aremote_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/harnest/harnest/backend/a2aremote"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/netguard/netguardtest"
	"github.com/harnest/harnest/runtime"
)

// runOnce runs one turn of agent directly and returns the turn's error
// code ("" when it succeeded).
func runOnce(t *testing.T, agent *a2aremote.Agent) string {
	t.Helper()
	turn := &runtime.Turn{ResponseID: "resp_1", SessionID: "sess_1", Input: "hi",
		Content: []runtime.ContentInput{{Type: "text", Text: "hi"}}}
	err := agent.Run(context.Background(), turn, func(runtime.Event) error { return nil })
	if err == nil {
		return ""
	}
	var re *runtime.Error
	if !errors.As(err, &re) {
		t.Fatalf("the turn failed with %v, not a *runtime.Error", err)
	}
	if !errors.Is(err, runtime.ErrAgentUnavailable) {
		t.Fatalf("the turn failed with kind %v, want ErrAgentUnavailable", re.Kind)
	}
	return re.Code
}

// guarded builds the backend with the test resolver and dialer; its log is
// in the returned buffer.
func guarded(t *testing.T, cfg config.A2ABackend, r netguardtest.Resolver, d *netguardtest.RecordingDialer) (*a2aremote.Agent, *syncBuffer, error) {
	t.Helper()
	logs := &syncBuffer{}
	if cfg.TimeoutSeconds == 0 {
		cfg.TimeoutSeconds = 5
	}
	agent, err := a2aremote.New(a2aremote.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Resolver: r, Dial: d.Dial})
	if err == nil {
		t.Cleanup(func() { agent.Close() })
	}
	return agent, logs, err
}

func addrs(s ...string) []netip.Addr {
	var out []netip.Addr
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

func TestGuardRefusesPrivateResolution(t *testing.T) {
	for _, target := range []string{"10.0.0.1", "169.254.169.254"} {
		t.Run(target, func(t *testing.T) {
			dialer := &netguardtest.RecordingDialer{}
			resolver := netguardtest.Resolver{"agents.example.com": addrs(target)}
			agent, logs, err := guarded(t, config.A2ABackend{URL: "https://agents.example.com/"}, resolver, dialer)
			if err != nil {
				t.Fatal(err)
			}
			if code := runOnce(t, agent); code != a2aremote.CodeUnavailable {
				t.Fatalf("code %q, want %q", code, a2aremote.CodeUnavailable)
			}
			if n := dialer.Count(); n != 0 {
				t.Fatalf("the dialer was asked %d times: %v", n, dialer.Dialled())
			}
			if !strings.Contains(logs.String(), target) {
				t.Errorf("the log does not give the guard's reason:\n%s", logs)
			}
			if err := agent.Ready(context.Background()); err == nil {
				t.Error("Ready reports a refused remote as ready")
			}
		})
	}
}

func TestGuardRefusesPlainHTTP(t *testing.T) {
	resolver := netguardtest.Resolver{"agents.example.com": addrs("93.184.216.34")}

	// Refused at once: plain http to a public host, a literal private address.
	for _, url := range []string{"http://agents.example.com/", "http://10.0.0.1/", "https://10.0.0.1/", "http://localhost:8080/"} {
		dialer := &netguardtest.RecordingDialer{}
		if _, _, err := guarded(t, config.A2ABackend{URL: url}, resolver, dialer); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("New(%s) = %v, want a refusal", url, err)
		}
	}

	// Listed, but public: plain http is for loopback only, refused when
	// the name resolves, before anything is dialled.
	dialer := &netguardtest.RecordingDialer{}
	agent, _, err := guarded(t, config.A2ABackend{URL: "http://agents.example.com/", AllowHosts: []string{"agents.example.com"}}, resolver, dialer)
	if err != nil {
		t.Fatal(err)
	}
	if code := runOnce(t, agent); code != a2aremote.CodeUnavailable {
		t.Fatalf("code %q, want %q", code, a2aremote.CodeUnavailable)
	}
	if n := dialer.Count(); n != 0 {
		t.Fatalf("the dialer was asked %d times: %v", n, dialer.Dialled())
	}
}

func TestGuardRechecksRedirects(t *testing.T) {
	for _, target := range []string{"https://agents.example.com/card.json", "http://agents.example.com/card.json"} {
		t.Run(target, func(t *testing.T) {
			hs := httptest.NewServer(http.RedirectHandler(target, http.StatusFound))
			t.Cleanup(hs.Close)
			dialer := &netguardtest.RecordingDialer{}
			resolver := netguardtest.Resolver{"agents.example.com": addrs("10.0.0.1")}
			agent, _, err := guarded(t, config.A2ABackend{URL: hs.URL, AllowHosts: []string{"127.0.0.1"}}, resolver, dialer)
			if err != nil {
				t.Fatal(err)
			}
			if code := runOnce(t, agent); code != a2aremote.CodeUnavailable {
				t.Fatalf("code %q, want %q", code, a2aremote.CodeUnavailable)
			}
			for _, a := range dialer.Dialled() {
				if !strings.HasPrefix(a, "127.0.0.1:") {
					t.Fatalf("the redirect target was dialled: %v", dialer.Dialled())
				}
			}
		})
	}
}

func TestGuardRefusesCardInterfaces(t *testing.T) {
	// A loopback card whose interface is on a host the guard refuses.
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"x","description":"x","version":"1","capabilities":{"streaming":true},
			"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],
			"supportedInterfaces":[{"url":"http://agents.example.com/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`))
	}))
	t.Cleanup(hs.Close)
	dialer := &netguardtest.RecordingDialer{}
	resolver := netguardtest.Resolver{"agents.example.com": addrs("10.0.0.1")}
	agent, logs, err := guarded(t, config.A2ABackend{URL: hs.URL, AllowHosts: []string{"127.0.0.1"}}, resolver, dialer)
	if err != nil {
		t.Fatal(err)
	}
	if code := runOnce(t, agent); code != a2aremote.CodeUnavailable {
		t.Fatalf("code %q, want %q:\n%s", code, a2aremote.CodeUnavailable, logs)
	}
	if len(dialer.Dialled()) != 1 {
		t.Fatalf("dialled %v, want only the card's host", dialer.Dialled())
	}
}

func TestGuardBoundsTheCard(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"` + strings.Repeat("x", 2<<20) + `"}`))
	}))
	t.Cleanup(hs.Close)
	agent, _, err := guarded(t, config.A2ABackend{URL: hs.URL, AllowHosts: []string{"127.0.0.1"}}, nil, &netguardtest.RecordingDialer{})
	if err != nil {
		t.Fatal(err)
	}
	if code := runOnce(t, agent); code != a2aremote.CodeBadResponse {
		t.Fatalf("code %q, want %q", code, a2aremote.CodeBadResponse)
	}
}

func TestUnreachable(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL
	hs.Close() // nothing listens there any more
	var logs bytes.Buffer
	agent, err := a2aremote.New(a2aremote.Options{Config: config.A2ABackend{URL: url, AllowHosts: []string{"127.0.0.1"}},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if code := runOnce(t, agent); code != a2aremote.CodeUnavailable {
		t.Fatalf("code %q, want %q", code, a2aremote.CodeUnavailable)
	}
}
