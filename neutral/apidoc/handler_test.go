package apidoc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"
)

func newTestHandler(t *testing.T) (*openapi3.T, http.Handler) {
	t.Helper()
	doc := mustDocument(t, Options{AgentName: "demo", Description: "A demo agent."})
	h, err := Handler(doc)
	if err != nil {
		t.Fatalf("Handler: %v", err)
	}
	return doc, h
}

func request(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

func pathSet(doc *openapi3.T) []string {
	paths := make([]string, 0, doc.Paths.Len())
	for p := range doc.Paths.Map() {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

func TestHandlerNilDocument(t *testing.T) {
	if _, err := Handler(nil); err == nil {
		t.Fatal("Handler(nil) succeeded")
	}
}

func TestServeJSON(t *testing.T) {
	doc, h := newTestHandler(t)
	rec := request(h, http.MethodGet, "/openapi.json")
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	loaded, err := openapi3.NewLoader().LoadFromData(rec.Body.Bytes())
	if err != nil {
		t.Fatalf("load served JSON: %v", err)
	}
	if err := loaded.Validate(context.Background()); err != nil {
		t.Errorf("served JSON does not validate: %v", err)
	}
	if got, want := strings.Join(pathSet(loaded), " "), strings.Join(pathSet(doc), " "); got != want {
		t.Errorf("served paths = %s, want %s", got, want)
	}
	if loaded.Info.Title != "Harnest: demo" {
		t.Errorf("served title = %q", loaded.Info.Title)
	}
}

func TestServeYAML(t *testing.T) {
	doc, h := newTestHandler(t)
	rec := request(h, http.MethodGet, "/openapi.yaml")
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/yaml" {
		t.Errorf("Content-Type = %q", ct)
	}
	if cd := rec.Header().Get("Content-Disposition"); cd != `inline; filename="openapi.yaml"` {
		t.Errorf("Content-Disposition = %q", cd)
	}
	body := rec.Body.Bytes()
	if strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
		t.Errorf("YAML body is in JSON flow style")
	}

	var parsed struct {
		OpenAPI string         `yaml:"openapi"`
		Paths   map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(body, &parsed); err != nil {
		t.Fatalf("parse YAML: %v", err)
	}
	if parsed.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q", parsed.OpenAPI)
	}
	var got []string
	for p := range parsed.Paths {
		got = append(got, p)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(pathSet(doc), " ") {
		t.Errorf("YAML paths = %v, want %v", got, pathSet(doc))
	}

	// The YAML is the same document: kin-openapi loads it to an equal one.
	fromYAML, err := openapi3.NewLoader().LoadFromData(body)
	if err != nil {
		t.Fatalf("load served YAML: %v", err)
	}
	fromJSON, err := openapi3.NewLoader().LoadFromData(request(h, http.MethodGet, "/openapi.json").Body.Bytes())
	if err != nil {
		t.Fatalf("load served JSON: %v", err)
	}
	a, _ := fromYAML.MarshalJSON()
	b, _ := fromJSON.MarshalJSON()
	if string(a) != string(b) {
		t.Errorf("YAML and JSON renderings describe different documents")
	}

	// Keys follow reading order and stay stable.
	var root yaml.Node
	if err := yaml.Unmarshal(body, &root); err != nil {
		t.Fatal(err)
	}
	var keys []string
	top := root.Content[0]
	for i := 0; i < len(top.Content); i += 2 {
		keys = append(keys, top.Content[i].Value)
	}
	if want := "openapi info tags security paths components"; strings.Join(keys, " ") != want {
		t.Errorf("top-level keys = %v, want %s", keys, want)
	}
	again, err := Handler(doc)
	if err != nil {
		t.Fatal(err)
	}
	if request(again, http.MethodGet, "/openapi.yaml").Body.String() != string(body) {
		t.Errorf("YAML rendering is not stable")
	}
}

func TestHead(t *testing.T) {
	_, h := newTestHandler(t)
	for _, path := range []string{"/openapi.json", "/openapi.yaml"} {
		get := request(h, http.MethodGet, path)
		head := request(h, http.MethodHead, path)
		if head.Code != http.StatusOK {
			t.Errorf("HEAD %s status = %d", path, head.Code)
		}
		if head.Body.Len() != 0 {
			t.Errorf("HEAD %s wrote a body", path)
		}
		if head.Header().Get("Content-Length") != get.Header().Get("Content-Length") {
			t.Errorf("HEAD %s Content-Length = %q, GET has %q", path,
				head.Header().Get("Content-Length"), get.Header().Get("Content-Length"))
		}
	}
	if rec := request(h, http.MethodHead, "/docs"); rec.Code != http.StatusOK {
		t.Errorf("HEAD /docs status = %d", rec.Code)
	}
}

var assetRef = regexp.MustCompile(`(?:src|href)="([^"]+)"`)

func TestServeDocs(t *testing.T) {
	_, h := newTestHandler(t)
	for _, path := range []string{"/docs", "/docs/"} {
		rec := request(h, http.MethodGet, path)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s status = %d", path, rec.Code)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("GET %s Content-Type = %q", path, ct)
		}
	}

	html := request(h, http.MethodGet, "/docs").Body.String()
	lower := strings.ToLower(html)
	if !strings.Contains(lower, "swagger") {
		t.Errorf("docs page does not mention swagger")
	}
	if !strings.Contains(html, "Harnest: demo") {
		t.Errorf("docs page does not carry the document title")
	}
	if !strings.Contains(html, "/openapi.json") {
		t.Errorf("docs page does not point at /openapi.json")
	}
	for _, cdn := range []string{"cdn", "unpkg", "jsdelivr"} {
		if strings.Contains(lower, cdn) {
			t.Errorf("docs page mentions %q", cdn)
		}
	}

	var scripts int
	for _, m := range assetRef.FindAllStringSubmatch(html, -1) {
		ref := m[1]
		if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "//") {
			t.Errorf("docs page loads an external asset: %s", ref)
			continue
		}
		if !strings.HasPrefix(ref, "/docs/") {
			t.Errorf("asset %s is not served under /docs/", ref)
			continue
		}
		rec := request(h, http.MethodGet, ref)
		if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
			t.Errorf("GET %s: status %d, %d bytes", ref, rec.Code, rec.Body.Len())
		}
		if strings.HasSuffix(ref, ".js") {
			scripts++
		}
	}
	if scripts == 0 {
		t.Errorf("docs page references no JavaScript asset")
	}
}

func TestNotFound(t *testing.T) {
	_, h := newTestHandler(t)
	for _, path := range []string{"/", "/openapi", "/openapi.yml", "/docsx", "/responses", "/docs/missing.js"} {
		if rec := request(h, http.MethodGet, path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s status = %d, want 404", path, rec.Code)
		}
	}
	if rec := request(h, http.MethodPost, "/elsewhere"); rec.Code != http.StatusNotFound {
		t.Errorf("POST /elsewhere status = %d, want 404", rec.Code)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	_, h := newTestHandler(t)
	for _, path := range []string{"/openapi.json", "/openapi.yaml", "/docs", "/docs/swagger-ui.css"} {
		for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
			rec := request(h, method, path)
			if rec.Code != http.StatusMethodNotAllowed {
				t.Errorf("%s %s status = %d, want 405", method, path, rec.Code)
			}
			if allow := rec.Header().Get("Allow"); allow != "GET, HEAD" {
				t.Errorf("%s %s Allow = %q", method, path, allow)
			}
		}
	}
}

// HandlerFor builds a document once per options and serves the same bytes
// as Document and Handler do.
func TestHandlerForIsCachedPerOptions(t *testing.T) {
	o := Options{AgentName: "cached", Live: true}
	a, err := HandlerFor(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := HandlerFor(o)
	if a != b {
		t.Fatal("the same options built a second handler")
	}
	other, _ := HandlerFor(Options{AgentName: "other"})
	if other == a {
		t.Fatal("other options got the cached handler")
	}
	doc, _ := Document(o)
	fresh, _ := Handler(doc)
	for _, path := range []string{"/openapi.json", "/openapi.yaml"} {
		got, want := httptest.NewRecorder(), httptest.NewRecorder()
		a.ServeHTTP(got, httptest.NewRequest("GET", path, nil))
		fresh.ServeHTTP(want, httptest.NewRequest("GET", path, nil))
		if got.Body.String() != want.Body.String() || got.Code != 200 {
			t.Fatalf("%s: the cached handler serves other bytes", path)
		}
	}
}
