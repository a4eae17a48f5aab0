package skills_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// validName is the Agent Skills rule for name.
var validName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// testCard has skills whose ids need work: spaces and capitals, a slash,
// two that become the same name, one repeated, and entries to leave out.
func testCard() map[string]any {
	return map[string]any{
		"name":        "Helper",
		"description": "Helps with documents.",
		"version":     "1.0.0",
		"supportedInterfaces": []any{map[string]any{
			"url": "http://127.0.0.1:1907", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0",
		}},
		"capabilities":       map[string]any{"streaming": true},
		"defaultInputModes":  []any{"text/plain"},
		"defaultOutputModes": []any{"text/plain"},
		"skills": []any{
			map[string]any{"id": "Summarize PDF", "name": "Summarize a PDF", "description": "Summarizes: PDFs, \"quoted\"\nand multi-line.",
				"tags": []any{"pdf", "summary"}, "examples": []any{"Summarize this PDF: ```it's``` <b>now</b>"}},
			map[string]any{"id": "docs/search", "name": "Search", "description": "Finds documents.", "tags": []any{"search"}},
			map[string]any{"id": "summarize-pdf", "name": "Another", "description": "Same name once derived."},
			map[string]any{"id": "docs/search", "name": "Repeated id"},
			map[string]any{"name": "No id"},
			"not a skill",
		},
	}
}

type entry struct{ ID, Name, Description, URL string }

func listSkills(t *testing.T, ts *servertest.Server) []entry {
	t.Helper()
	r := ts.Get("/skills")
	servertest.MustStatus(t, r, http.StatusOK)
	var list struct{ Skills []entry }
	if err := json.Unmarshal(r.Body, &list); err != nil {
		t.Fatalf("GET /skills: %v: %s", err, r.Body)
	}
	return list.Skills
}

// skillFile fetches one SKILL.md and parses its front matter with a YAML
// parser; it returns the front matter and the Markdown after it.
func skillFile(t *testing.T, ts *servertest.Server, path string) (map[string]string, string) {
	t.Helper()
	r := ts.Get(path)
	servertest.MustStatus(t, r, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "text/markdown; charset=utf-8" {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	rest, ok := bytes.CutPrefix(r.Body, []byte("---\n"))
	header, body, found := bytes.Cut(rest, []byte("\n---\n"))
	if !ok || !found {
		t.Fatalf("%s has no front matter:\n%s", path, r.Body)
	}
	var front map[string]string
	if err := yaml.Unmarshal(header, &front); err != nil {
		t.Fatalf("%s: front matter is not YAML: %v\n%s", path, err, header)
	}
	return front, string(body)
}

func TestEverySkillListedAndServed(t *testing.T) {
	ts := servertest.Start(t, "", servertest.Setup{Card: testCard(), PublicURL: true, Config: func(c *config.Config) {
		c.Server.MCP = true
		c.Auth.Tokens = []config.Token{{Token: "token-alice-0123456789", User: "alice"}} // the routes stay public
	}})
	list := listSkills(t, ts)
	var ids, names []string
	for _, e := range list {
		ids, names = append(ids, e.ID), append(names, e.Name)
	}
	if strings.Join(ids, "|") != "Summarize PDF|docs/search|summarize-pdf" || strings.Join(names, "|") != "summarize-pdf|docs-search|summarize-pdf-2" {
		t.Fatalf("listed ids %q, names %q", ids, names)
	}
	for _, e := range list {
		if !strings.HasPrefix(e.URL, ts.URL+"/skills/") || !strings.HasSuffix(e.URL, "/SKILL.md") {
			t.Errorf("url %q", e.URL)
		}
		front, body := skillFile(t, ts, strings.TrimPrefix(e.URL, ts.URL))
		if len(front) != 2 || front["name"] != e.Name || front["description"] != e.Description {
			t.Errorf("%s: front matter %q, listed %+v", e.ID, front, e)
		}
		if !validName.MatchString(front["name"]) || len(front["name"]) > 64 {
			t.Errorf("%s: name %q breaks the Agent Skills rules", e.ID, front["name"])
		}
		if d := front["description"]; d == "" || utf8.RuneCountInString(d) > 1024 || !strings.Contains(d, "Use it when") {
			t.Errorf("%s: description %q", e.ID, d)
		}
		for _, want := range []string{ts.URL + "/.well-known/agent-card.json", ts.URL + "/mcp", "POST " + ts.URL + "/responses", "/approvals/{id}"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the instructions do not mention %s:\n%s", e.ID, want, body)
			}
		}
	}
	_, body := skillFile(t, ts, "/skills/Summarize%20PDF/SKILL.md")
	if !strings.Contains(body, "````http") || !strings.Contains(body, "{\"input\":\"Summarize this PDF: ```it's``` <b>now</b>\"}") {
		t.Errorf("the example request is not in a fence of its own:\n%s", body)
	}

	r := ts.Get("/skills/nope/SKILL.md")
	servertest.MustStatus(t, r, http.StatusNotFound)
	if code := r.JSON(t)["code"]; code != "skill_not_found" {
		t.Errorf("unknown skill: code %v", code)
	}
}

// TestHelloSkills: the default folder's card, with relative links and no
// /mcp.
func TestHelloSkills(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{}, func(t *testing.T, ts *servertest.Server) {
		list := listSkills(t, ts)
		if len(list) != 1 || list[0].ID != "echo" || list[0].Name != "echo" || list[0].URL != "/skills/echo/SKILL.md" {
			t.Fatalf("skills %+v", list)
		}
		front, body := skillFile(t, ts, list[0].URL)
		if front["name"] != "echo" || !strings.HasPrefix(front["description"], "Repeats the message back.") {
			t.Errorf("front matter %q", front)
		}
		if strings.Contains(body, "/mcp") || !strings.Contains(body, "`/.well-known/agent-card.json`") || !strings.Contains(body, `{"input":"Hello!"}`) {
			t.Errorf("instructions:\n%s", body)
		}
	})
}
