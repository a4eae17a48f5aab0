package alive

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

func ext(params map[string]any) map[string]any {
	return map[string]any{"uri": ExtensionURI, "required": false, "params": params}
}

// fileServer is a local https server for .alive.json files, reached as
// example.com (its test certificate's name) through an injected resolver
// and allowed explicitly, so nothing leaves 127.0.0.1.
func fileServer(t *testing.T, files map[string]string) (string, Options, *netguardtest.RecordingDialer) {
	t.Helper()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(ts.Close)
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	d := &netguardtest.RecordingDialer{}
	o := Options{
		Resolver:   netguardtest.Resolver{"example.com": {netip.MustParseAddr("127.0.0.1")}},
		Dial:       d.Dial,
		AllowHosts: []string{"example.com"},
		TLSConfig:  &tls.Config{RootCAs: pool},
	}
	return "https://example.com:" + port, o, d
}

func TestCheckReturnsTheParamsLook(t *testing.T) {
	l, err := Check(context.Background(), ext(map[string]any{
		"look": "dots-purple", "colors": map[string]any{"line": "#a774e2", "background": "#f4ecfd"}, "display_name": "Plum",
	}), Options{})
	want := Look{Look: "dots-purple", Line: "#a774e2", Background: "#f4ecfd", DisplayName: "Plum"}
	if err != nil || l != want {
		t.Fatalf("Check = %+v, %v; want %+v", l, err, want)
	}
}

func TestCheckFillsTheLookFromTheFile(t *testing.T) {
	base, o, d := fileServer(t, map[string]string{
		"/named.alive.json":   `{"look":"owl","colors":{"line":"#123","background":"#fff"},"name":"Hoot"}`,
		"/display.alive.json": `{"look":"fox","name":"Short","display_name":"Long name"}`,
		"/bad.alive.json":     `{"look":"owl","colors":{"line":"red"}}`,
	})
	ctx := context.Background()
	// The params win; the file fills what they leave out.
	l, err := Check(ctx, ext(map[string]any{"look": "cat", "alive_json": base + "/named.alive.json"}), o)
	if want := (Look{Look: "cat", Line: "#123", Background: "#fff", DisplayName: "Hoot"}); err != nil || l != want {
		t.Fatalf("params and file: %+v, %v; want %+v", l, err, want)
	}
	// The file's display_name wins over its name.
	l, err = Check(ctx, ext(map[string]any{"alive_json": base + "/display.alive.json"}), o)
	if want := (Look{Look: "fox", DisplayName: "Long name"}); err != nil || l != want {
		t.Fatalf("file alone: %+v, %v; want %+v", l, err, want)
	}
	// A file that fails the check makes the whole extension invalid.
	if l, err = Check(ctx, ext(map[string]any{"look": "cat", "alive_json": base + "/bad.alive.json"}), o); err == nil ||
		!strings.Contains(err.Error(), "params.alive_json: its colors.line must be #rgb or #rrggbb") || !l.IsZero() {
		t.Fatalf("bad file: %+v, %v", l, err)
	}
	if d.Count() != 3 {
		t.Fatalf("dialled %v, want one fetch per check", d.Dialled())
	}
}

func TestCheckRefusesBeforeAnyDial(t *testing.T) {
	res := netguardtest.Resolver{"private.example.com": {netip.MustParseAddr("10.0.0.7")}}
	for name, c := range map[string]struct{ url, why string }{
		"http":            {"http://agents.example.com/a.alive.json", "must be an https URL"},
		"private literal": {"https://192.168.1.10/a.alive.json", "private, loopback or link-local"},
		"private name":    {"https://private.example.com/a.alive.json", "private, loopback or link-local"},
		"loopback":        {"https://127.0.0.1:1/a.alive.json", "private, loopback or link-local"},
		"localhost":       {"https://localhost/a.alive.json", "names this machine"},
	} {
		t.Run(name, func(t *testing.T) {
			d := &netguardtest.RecordingDialer{}
			l, err := Check(context.Background(), ext(map[string]any{"look": "owl", "alive_json": c.url}), Options{Resolver: res, Dial: d.Dial})
			if err == nil || !strings.Contains(err.Error(), c.why) || !l.IsZero() {
				t.Fatalf("Check = %+v, %v; want a refusal because %s", l, err, c.why)
			}
			if d.Count() != 0 {
				t.Fatalf("dialled %v", d.Dialled())
			}
		})
	}
}

func TestFind(t *testing.T) {
	other := map[string]any{"uri": "https://example.com/ext/other/v1"}
	mine := ext(map[string]any{"look": "owl"})
	if e, i, ok := Find([]any{other, "junk", mine}); !ok || i != 2 || e["params"] == nil {
		t.Fatalf("Find = %v %d %v", e, i, ok)
	}
	if _, _, ok := Find([]any{other}); ok {
		t.Fatal("found an alive extension in a list without one")
	}
}
