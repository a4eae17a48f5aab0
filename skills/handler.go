package skills

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/harnest/harnest/internal/httpapi"
)

// Options configure the skills routes.
type Options struct {
	Card          map[string]any // agent-card.yaml as loaded
	PublicBaseURL string         // where clients reach the server, when behind a proxy
	MCP           bool           // /mcp is served
	// AgentName is metadata.name: the name of the /mcp tool. Without it
	// the files tell the assistant to take the one tool tools/list shows.
	AgentName string
}

// Entry is one skill in the GET /skills list.
type Entry struct {
	ID          string `json:"id"`          // the card's skill id, as in the file's URL
	Name        string `json:"name"`        // the file's front matter name
	Description string `json:"description"` // the file's front matter description
	URL         string `json:"url"`         // where the SKILL.md is served
}

// published is every skill's file, generated once from the card.
type published struct {
	list  []Entry
	files map[string][]byte // by skill id
}

// Register mounts GET /skills and GET /skills/{id}/SKILL.md on mux.
func Register(mux *http.ServeMux, o Options) {
	p := publish(o)
	mux.HandleFunc("GET /skills", p.serveList)
	mux.HandleFunc("GET /skills/{id}/SKILL.md", p.serveFile)
}

// IsPublic reports the skills routes: they need no credentials, like the
// agent card they come from.
func IsPublic(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	path := r.URL.Path
	return path == "/skills" || (strings.HasPrefix(path, "/skills/") && strings.HasSuffix(path, "/SKILL.md"))
}

// publish generates the list and the files from the card.
func publish(o Options) *published {
	a := agent{Name: text(o.Card["name"]), Description: text(o.Card["description"]), ToolName: o.AgentName, MCP: o.MCP,
		BaseURL: strings.TrimRight(o.PublicBaseURL, "/")}
	if a.Name == "" {
		a.Name = o.AgentName
	}
	p := &published{list: []Entry{}, files: map[string][]byte{}}
	taken := map[string]bool{}
	for _, s := range cardSkills(o.Card) {
		name := uniqueName(skillName(s.ID), taken)
		description := skillDescription(s, a.Name)
		file, err := skillFile(s, name, description, a)
		if err != nil {
			continue // text YAML cannot encode is left out rather than served broken
		}
		p.files[s.ID] = file
		p.list = append(p.list, Entry{ID: s.ID, Name: name, Description: description,
			URL: a.url("/skills/" + url.PathEscape(s.ID) + "/SKILL.md")})
	}
	return p
}

func (p *published) serveList(w http.ResponseWriter, _ *http.Request) {
	httpapi.WriteJSON(w, http.StatusOK, map[string][]Entry{"skills": p.list})
}

func (p *published) serveFile(w http.ResponseWriter, r *http.Request) {
	file, ok := p.files[r.PathValue("id")]
	if !ok {
		httpapi.Fail(w, http.StatusNotFound, "skill_not_found", "Skill not found: GET /skills lists the skills of this agent")
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(file)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(file)
}
