package playground

import (
	"bytes"
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed static
var static embed.FS

// ContentSecurityPolicy is the policy every playground answer carries: only
// the page's own files run or style it, it talks only to this server (and
// its WebSocket), images come from here, data: or blob: (upload previews),
// and no other site may frame it.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"connect-src 'self' ws: wss:; img-src 'self' data: blob:; base-uri 'none'; " +
	"frame-ancestors 'none'; form-action 'none'"

// AssetPrefix is the path under which the page's files are served.
const AssetPrefix = "/_harnest/"

// Handler serves the playground: the page at "/" and its files under
// "/_harnest/". Every answer carries a strict content security policy; the
// page is never cached, its files are revalidated (no-cache).
func Handler() http.Handler {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "Method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path == "/" {
			h.Set("Cache-Control", "no-store")
			serveFile(w, r, files, "index.html")
			return
		}
		name, ok := assetName(r.URL.Path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.Set("Cache-Control", "no-cache")
		serveFile(w, r, files, name)
	})
}

// assetName maps "/_harnest/js/api.js" to "js/api.js". Folders, the page
// itself and anything outside the tree are not assets.
func assetName(urlPath string) (string, bool) {
	name, ok := strings.CutPrefix(urlPath, AssetPrefix)
	if !ok || name == "" || strings.HasSuffix(name, "/") || name == "index.html" {
		return "", false
	}
	if !fs.ValidPath(name) || path.Clean(name) != name {
		return "", false
	}
	return name, true
}

// serveFile writes one embedded file (a 404 for a missing one or a
// folder), with its type from its extension and range and
// conditional-request support from http.ServeContent.
func serveFile(w http.ResponseWriter, r *http.Request, files fs.FS, name string) {
	body, err := fs.ReadFile(files, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		w.Header().Set("Content-Type", t)
	} else {
		w.Header().Set("Content-Type", "application/octet-stream")
	}
	// Embedded files have no modification time; ServeContent then uses
	// none, and the ETag-less answer is revalidated by no-cache.
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}

// IsPublic reports the playground's own requests: the page and its files
// need no credentials (the page asks for a token and sends it itself).
func IsPublic(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, AssetPrefix) && len(r.URL.Path) > len(AssetPrefix)
}
