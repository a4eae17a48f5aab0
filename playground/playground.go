package playground

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// Handler serves the playground: the page at "/" and its files under
// "/_harnest/". Every answer carries a strict content security policy.
func Handler() http.Handler {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	assets := http.StripPrefix("/_harnest/", http.FileServerFS(files))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		if r.URL.Path == "/" {
			http.ServeFileFS(w, r, files, "index.html")
			return
		}
		assets.ServeHTTP(w, r)
	})
}

// IsPublic reports the playground's own requests: the page and its files
// need no credentials (the page asks for a token and sends it itself).
func IsPublic(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.URL.Path == "/" || len(r.URL.Path) > len("/_harnest/") && r.URL.Path[:len("/_harnest/")] == "/_harnest/"
}
