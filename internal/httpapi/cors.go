package httpapi

import (
	"net/http"
	"slices"
	"strings"
)

// Cross-origin requests from browsers: the origins of server.allowedOrigins
// may call the HTTP API from their pages. Same-origin requests and clients
// that are not browsers (no Origin header) pass through untouched.
const (
	corsMethods = "GET, POST, PATCH, DELETE, OPTIONS"
	corsHeaders = "Authorization, Content-Type, Last-Event-ID, Harnest-Session-Id, X-Request-Id, Traceparent, Tracestate"
	// corsExposed are the answer headers a page may read.
	corsExposed = "Harnest-Session-Id, Harnest-Response-Id, Retry-After, X-Request-Id, Location"
	corsMaxAge  = "600"
)

// CORS answers preflights for the allowed origins and marks their answers
// readable by them. An allowed origin is listed exactly (scheme://host[:port]);
// credentials are allowed only for such a listed origin, never for "*",
// which this middleware does not accept. A preflight from another origin
// is refused with 403 and a sentence.
func CORS(allowed []string, next http.Handler) http.Handler {
	origins := make([]string, 0, len(allowed))
	for _, o := range allowed {
		if o = strings.TrimSuffix(strings.TrimSpace(o), "/"); o != "" && o != "*" {
			origins = append(origins, o)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || sameOrigin(r, origin) {
			next.ServeHTTP(w, r)
			return
		}
		listed := slices.Contains(origins, origin)
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		h := w.Header()
		h.Add("Vary", "Origin")
		if preflight {
			if !listed {
				Fail(w, http.StatusForbidden, "origin_not_allowed", "This origin may not call the API from a browser; add it to server.allowedOrigins")
				return
			}
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if listed {
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Set("Access-Control-Expose-Headers", corsExposed)
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports an Origin that is the server's own, as the browser
// reached it (the Host header, http or https).
func sameOrigin(r *http.Request, origin string) bool {
	return origin == "http://"+r.Host || origin == "https://"+r.Host
}
