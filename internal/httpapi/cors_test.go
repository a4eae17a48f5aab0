package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCORS(t *testing.T) {
	var reached int
	h := CORS([]string{"https://app.example.com/", "*"}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusOK)
	}))
	do := func(method, origin string, headers ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "http://127.0.0.1:1907/responses", nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	// A preflight of a listed origin is answered here, not by the API.
	pre := do("OPTIONS", "https://app.example.com", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type")
	if pre.Code != http.StatusNoContent || pre.Header().Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		!strings.Contains(pre.Header().Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(pre.Header().Get("Access-Control-Allow-Methods"), "POST") || reached != 0 {
		t.Fatalf("preflight: %d %v (reached %d)", pre.Code, pre.Header(), reached)
	}
	// Another origin's preflight is refused; "*" in the list allows nobody.
	if bad := do("OPTIONS", "https://evil.example", "Access-Control-Request-Method", "POST"); bad.Code != http.StatusForbidden ||
		bad.Header().Get("Access-Control-Allow-Origin") != "" || !strings.Contains(bad.Body.String(), "origin_not_allowed") {
		t.Fatalf("foreign preflight: %d %v %s", bad.Code, bad.Header(), bad.Body)
	}
	// A listed origin's request reaches the API and is marked readable,
	// with the headers a page needs.
	ok := do("POST", "https://app.example.com")
	if ok.Code != http.StatusOK || ok.Header().Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		ok.Header().Get("Access-Control-Allow-Credentials") != "true" ||
		!strings.Contains(ok.Header().Get("Access-Control-Expose-Headers"), "Harnest-Session-Id") || reached != 1 {
		t.Fatalf("listed request: %d %v", ok.Code, ok.Header())
	}
	// Another origin's request reaches the API (the browser hides the
	// answer), same-origin and non-browser requests are untouched.
	for _, origin := range []string{"https://evil.example", "http://127.0.0.1:1907", ""} {
		rec := do("GET", origin)
		if rec.Code != http.StatusOK || rec.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("origin %q: %d %v", origin, rec.Code, rec.Header())
		}
	}
	// A plain OPTIONS (no preflight) is the API's to answer.
	before := reached
	if rec := do("OPTIONS", "https://app.example.com"); rec.Code != http.StatusOK || reached != before+1 {
		t.Errorf("plain OPTIONS: %d", rec.Code)
	}
}
