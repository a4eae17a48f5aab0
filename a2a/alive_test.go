package a2a

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/netguard/netguardtest"
)

func aliveExt(params map[string]any) map[string]any {
	return map[string]any{"uri": AliveExtensionURI, "required": false, "params": params}
}

func cardWith(exts ...any) map[string]any {
	c := testCard("http://127.0.0.1:1907", true)
	c["capabilities"] = map[string]any{"streaming": true, "extensions": exts}
	return c
}

func servedExtensions(t *testing.T, card map[string]any, alive AliveOptions) ([]any, []string) {
	t.Helper()
	info, err := buildCard(context.Background(), Options{Card: card, Alive: alive})
	if err != nil {
		t.Fatal(err)
	}
	exts, _ := dig(info.card, "capabilities", "extensions").([]any)
	return exts, info.warnings
}

func TestAliveInvalidFormsAreDropped(t *testing.T) {
	cases := map[string]map[string]any{
		"unknown look":          {"look": "human-face"},
		"look not a string":     {"look": 3},
		"neither look nor file": {"display_name": "Plum"},
		"bad color":             {"look": "owl", "colors": map[string]any{"line": "purple"}},
		"color too long":        {"look": "owl", "colors": map[string]any{"line": "#a774e2ff"}},
		"unknown color key":     {"look": "owl", "colors": map[string]any{"fill": "#fff"}},
		"colors not a map":      {"look": "owl", "colors": "#fff"},
		"name too long":         {"look": "owl", "display_name": strings.Repeat("a", 61)},
		"name with markup":      {"look": "owl", "display_name": "<b>Plum</b>"},
		"name with newline":     {"look": "owl", "display_name": "Plum\nthe owl"},
		"name with bidi":        {"look": "owl", "display_name": "Plum\u202e"},
		"blank name":            {"look": "owl", "display_name": "  "},
		"unknown param":         {"look": "owl", "voice": "deep"},
		"http alive_json":       {"alive_json": "http://agents.example.com/plum.alive.json"},
		"alive_json not url":    {"alive_json": "plum"},
		"alive_json userinfo":   {"alive_json": "https://u:p@agents.example.com/x.json"},
		"alive_json localhost":  {"alive_json": "https://localhost/x.json"},
	}
	for name, params := range cases {
		t.Run(name, func(t *testing.T) {
			d := &netguardtest.RecordingDialer{}
			other := map[string]any{"uri": "https://example.com/ext/other/v1"}
			exts, warnings := servedExtensions(t, cardWith(aliveExt(params), other), AliveOptions{Resolver: netguardtest.Resolver{}, Dial: d.Dial})
			if len(exts) != 1 || str(exts[0], "uri") != "https://example.com/ext/other/v1" {
				t.Fatalf("served extensions %v; want only the other one", exts)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], "alive extension") {
				t.Fatalf("warnings %v", warnings)
			}
			if d.Count() != 0 {
				t.Fatalf("dialled %v", d.Dialled())
			}
		})
	}
	t.Run("required", func(t *testing.T) {
		ext := aliveExt(map[string]any{"look": "owl"})
		ext["required"] = true
		exts, warnings := servedExtensions(t, cardWith(ext), AliveOptions{})
		if len(exts) != 0 || len(warnings) != 1 {
			t.Fatalf("required alive extension kept: %v %v", exts, warnings)
		}
	})
}

func TestAliveValidParamsKept(t *testing.T) {
	params := map[string]any{"look": "dots-purple", "colors": map[string]any{"line": "#a774e2", "background": "#fEc"}, "display_name": "Plum ✨"}
	exts, warnings := servedExtensions(t, cardWith(aliveExt(params)), AliveOptions{})
	if len(exts) != 1 || len(warnings) != 0 || str(exts[0], "params", "look") != "dots-purple" {
		t.Fatalf("valid extension: %v %v", exts, warnings)
	}
}

func TestAliveRefusesPrivateAddresses(t *testing.T) {
	for _, addr := range []string{"10.1.2.3", "172.16.0.9", "192.168.1.1", "127.0.0.1", "::1", "169.254.169.254",
		"fe80::1", "fd00::1", "100.64.0.1", "0.0.0.0", "::ffff:10.0.0.1",
		// IPv4 inside IPv6, judged by the IPv4 address (internal/netguard
		// tests every form).
		"::169.254.169.254", "::127.0.0.1", "::ffff:127.0.0.1", "::ffff:0:169.254.169.254", "64:ff9b::a9fe:a9fe",
		"64:ff9b:1::a9fe:a9fe", "2002:a9fe:a9fe::1", "2001:0:4136:e378:8000:63bf:f5ff:fffe"} {
		t.Run(addr, func(t *testing.T) {
			d := &netguardtest.RecordingDialer{}
			// Through a name that resolves to the address, and as a literal.
			for _, u := range []string{"https://alive.example.com/a.json", "https://" + bracket(addr) + "/a.json"} {
				res := netguardtest.Resolver{"alive.example.com": {netip.MustParseAddr(addr)}}
				exts, warnings := servedExtensions(t, cardWith(aliveExt(map[string]any{"alive_json": u})), AliveOptions{Resolver: res, Dial: d.Dial})
				if len(exts) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "private, loopback or link-local") {
					t.Fatalf("%s: kept %v, warnings %v", u, exts, warnings)
				}
			}
			if d.Count() != 0 {
				t.Fatalf("dialled %v", d.Dialled())
			}
		})
	}
	// A name with one public and one private address is refused too.
	d := &netguardtest.RecordingDialer{}
	res := netguardtest.Resolver{"mixed.example.com": {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.1")}}
	exts, _ := servedExtensions(t, cardWith(aliveExt(map[string]any{"alive_json": "https://mixed.example.com/a.json"})), AliveOptions{Resolver: res, Dial: d.Dial})
	if len(exts) != 0 || d.Count() != 0 {
		t.Fatalf("mixed addresses: kept %v, dialled %v", exts, d.Dialled())
	}
}

func bracket(addr string) string {
	if strings.Contains(addr, ":") {
		return "[" + addr + "]"
	}
	return addr
}

// aliveServer is a local https server for .alive.json files, reached as
// example.com (the name its test certificate carries) through the
// injected resolver, and allowed explicitly.
func aliveServer(t *testing.T, h http.HandlerFunc) (string, AliveOptions, *netguardtest.RecordingDialer) {
	t.Helper()
	ts := httptest.NewTLSServer(h)
	t.Cleanup(ts.Close)
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	d := &netguardtest.RecordingDialer{}
	o := AliveOptions{
		Resolver:   netguardtest.Resolver{"example.com": {netip.MustParseAddr("127.0.0.1")}},
		Dial:       d.Dial,
		AllowHosts: []string{"example.com"},
		TLSConfig:  &tls.Config{RootCAs: pool},
	}
	return "https://example.com:" + port, o, d
}

func TestAliveJSONFetched(t *testing.T) {
	base, o, d := aliveServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good.alive.json":
			_, _ = w.Write([]byte(`{"look":"owl","colors":{"line":"#123"},"name":"Plum","doors":[{"page":"https://x"}]}`))
		case "/big.alive.json":
			_, _ = w.Write([]byte(`{"look":"owl","pad":"` + strings.Repeat("x", 70<<10) + `"}`))
		case "/bad.alive.json":
			_, _ = w.Write([]byte(`{"look":"human"}`))
		case "/notjson.alive.json":
			_, _ = w.Write([]byte(`<html>`))
		case "/redirect.alive.json":
			http.Redirect(w, r, "/good.alive.json", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	exts, warnings := servedExtensions(t, cardWith(aliveExt(map[string]any{"look": "owl", "alive_json": base + "/good.alive.json"})), o)
	if len(exts) != 1 || len(warnings) != 0 {
		t.Fatalf("good alive_json: %v %v", exts, warnings)
	}
	if d.Count() != 1 || !strings.HasPrefix(d.Dialled()[0], "127.0.0.1:") {
		t.Fatalf("dialled %v, want the checked loopback address once", d.Dialled())
	}
	for name, why := range map[string]string{
		"big":      "larger than 64 KB",
		"bad":      "look must be one of the house looks",
		"notjson":  "is not a JSON object",
		"redirect": "redirects are not followed",
		"missing":  "answered HTTP 404",
	} {
		exts, warnings := servedExtensions(t, cardWith(aliveExt(map[string]any{"alive_json": base + "/" + name + ".alive.json"})), o)
		if len(exts) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], why) {
			t.Errorf("%s alive_json: kept %v, warnings %v; want it dropped because it %s", name, exts, warnings, why)
		}
	}
	// Without the explicit allowance, the same server is refused before
	// any dial.
	o.AllowHosts = nil
	before := d.Count()
	exts, _ = servedExtensions(t, cardWith(aliveExt(map[string]any{"alive_json": base + "/good.alive.json"})), o)
	if len(exts) != 0 || d.Count() != before {
		t.Fatalf("loopback without allowance: kept %v, dialled %v", exts, d.Dialled()[before:])
	}
	// A name that does not resolve says so.
	_, warnings = servedExtensions(t, cardWith(aliveExt(map[string]any{"alive_json": "https://nowhere.example/a.json"})), o)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "cannot resolve nowhere.example") {
		t.Fatalf("unresolvable host: %v", warnings)
	}
}
