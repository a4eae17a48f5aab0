package playground_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/playground"
)

// get fetches a URL of the test server.
func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

func TestPageAndAssetHeaders(t *testing.T) {
	srv := startServer(t, nil)
	want := "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self' ws: wss:; " +
		"img-src 'self' data: blob:; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
	if playground.ContentSecurityPolicy != want {
		t.Fatalf("policy %q", playground.ContentSecurityPolicy)
	}
	for _, c := range []struct{ path, cache, contentType, contains string }{
		{"/", "no-store", "text/html; charset=utf-8", `<script type="module" src="/_harnest/js/main.js">`},
		{"/_harnest/js/main.js", "no-cache", "text/javascript; charset=utf-8", "discover"},
		{"/_harnest/app.css", "no-cache", "text/css; charset=utf-8", "--accent"},
	} {
		res, body := get(t, srv.URL+c.path)
		h := res.Header
		if res.StatusCode != 200 || h.Get("Content-Security-Policy") != want || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("Referrer-Policy") != "no-referrer" || h.Get("Cache-Control") != c.cache || h.Get("Content-Type") != c.contentType {
			t.Errorf("%s: %d %v", c.path, res.StatusCode, h)
		}
		if !strings.Contains(body, c.contains) {
			t.Errorf("%s: body lacks %q", c.path, c.contains)
		}
	}
	// No inline script or style in the page: the policy would block them.
	_, page := get(t, srv.URL+"/")
	if strings.Contains(page, "<script>") || strings.Contains(page, "style=") || strings.Contains(page, "<style") {
		t.Error("the page has inline script or style")
	}
	for _, p := range []string{"/_harnest/", "/_harnest/js/", "/_harnest/index.html", "/_harnest/missing.js", "/_harnest/../go.mod", "/index.html"} {
		if res, _ := get(t, srv.URL+p); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, res.StatusCode)
		}
	}
}

func TestDisabledPlaygroundIs404(t *testing.T) {
	off := false
	srv := startServer(t, func(c *config.Config) { c.Server.Playground.Enabled = &off })
	for _, p := range []string{"/", "/_harnest/js/main.js", "/_harnest/app.css"} {
		if res, _ := get(t, srv.URL+p); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, res.StatusCode)
		}
	}
	if res, body := get(t, srv.URL+"/agent"); res.StatusCode != 200 || !strings.Contains(body, `"responses"`) {
		t.Errorf("/agent: %d %s", res.StatusCode, body)
	}
}

func TestPageIsPublicWithAuth(t *testing.T) {
	srv := startServer(t, func(c *config.Config) {
		c.Auth.Tokens = []config.Token{{Token: "tok-alice-0123456789", User: "alice"}}
	})
	if res, _ := get(t, srv.URL+"/"); res.StatusCode != 200 {
		t.Errorf("/: %d", res.StatusCode)
	}
	if res, _ := get(t, srv.URL+"/sessions"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("/sessions: %d, want 401", res.StatusCode)
	}
}
