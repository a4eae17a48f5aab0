package server

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The module's layers, as design.md draws them: cmd → server (the
// composition root) → doors → runtime → store, backends, config, with
// internal/ as leaf helpers. TestLayers checks the real module's imports
// against the rules below; TestLayerRules shows that each rule fails on
// an import that breaks it.

// module is the import path every package of harnest starts with.
const module = "github.com/harnest/harnest"

// layout says where each layer lives, as import paths relative to the
// module. A path stands for its sub-packages too. Moving a package is an
// edit of harnestLayout only.
type layout struct {
	commands string   // the binaries (cmd/harnest)
	root     string   // the composition root: builds a replica, picks the store, wires doors to backends
	doors    []string // translate a wire to the core; the relay is one: its door, and below it its agent, recipes, tools at home and text rules
	backends []string // the agents a turn runs on
	internal string   // leaf helpers
	// core is the runtime, which serves and sends no HTTP: net/http (or
	// any of its sub-packages) is the doors' and the sender's.
	core string
	// sender is the outbox's sender, the one package that POSTs
	// deliveries (webhooks, A2A push) that the core and the doors enqueue.
	sender string
	// storeImpls are the store's implementations and storeChooser the
	// package that picks one from the config.
	storeImpls   []string
	storeChooser string
	// redisClients are the outside packages that talk Redis; only the
	// Redis implementation of the store imports them.
	redisClients []string
}

var harnestLayout = layout{
	commands: "cmd",
	root:     "server",
	doors: []string{"neutral", "neutral/apidoc", "live", "agui", "a2a", "relay", "mcpapi", "openaiapi", "skills",
		"routerapi", "playground", "uichat", "schedule", "trigger", "memoryapi", "usageapi"},
	backends:     []string{"backend"},
	internal:     "internal",
	core:         "runtime",
	sender:       "outbox",
	storeImpls:   []string{"store/memstore", "store/redisstore"},
	storeChooser: "store/stores",
	redisClients: []string{"github.com/redis/go-redis", "github.com/alicebob/miniredis"},
}

// under reports whether pkg is path or one of its sub-packages.
func under(pkg, path string) bool { return pkg == path || strings.HasPrefix(pkg, path+"/") }

// underAny reports whether pkg is under one of paths.
func underAny(pkg string, paths []string) bool {
	return slices.ContainsFunc(paths, func(p string) bool { return under(pkg, p) })
}

// door names the door pkg belongs to (the longest matching entry), or "".
func (l layout) door(pkg string) string {
	best := ""
	for _, d := range l.doors {
		if under(pkg, d) && len(d) > len(best) {
			best = d
		}
	}
	return best
}

// A rule forbids some imports. A direct rule looks at what a package
// imports itself; the others at everything it depends on, through any
// chain of imports.
type rule struct {
	name    string
	direct  bool
	forbids func(from, to string) bool
}

// rules are the layering rules of l.
func (l layout) rules() []rule {
	return []rule{
		{name: "a door depends on no other door", forbids: func(from, to string) bool {
			a, b := l.door(from), l.door(to)
			return a != "" && b != "" && a != b && !under(a, b) && !under(b, a)
		}},
		{name: "a door (the relay included) depends on no backend", forbids: func(from, to string) bool {
			return l.door(from) != "" && underAny(to, l.backends)
		}},
		{name: "internal/ depends on no door, backend or composition root", forbids: func(from, to string) bool {
			return under(from, l.internal) && (l.door(to) != "" || underAny(to, l.backends) || under(to, l.root))
		}},
		{name: "the core serves and sends no HTTP: it depends on no net/http", forbids: func(from, to string) bool {
			return under(from, l.core) && under(to, "net/http")
		}},
		{name: "the outbox's sender depends on no door or backend", forbids: func(from, to string) bool {
			return under(from, l.sender) && (l.door(to) != "" || underAny(to, l.backends))
		}},
		{name: "only the commands depend on the composition root", forbids: func(from, to string) bool {
			return under(to, l.root) && !under(from, l.root) && !under(from, l.commands)
		}},
		{name: "only the store chooser and the composition root import a store implementation", direct: true,
			forbids: func(from, to string) bool {
				return underAny(to, l.storeImpls) && !under(from, l.storeChooser) && !under(from, l.root)
			}},
		{name: "only the composition root imports the store chooser", direct: true, forbids: func(from, to string) bool {
			return under(to, l.storeChooser) && !under(from, l.root)
		}},
		{name: "only a store implementation imports a Redis client", direct: true, forbids: func(from, to string) bool {
			return underAny(to, l.redisClients) && !underAny(from, l.storeImpls)
		}},
	}
}

// violations checks every package of imports (package → what it imports
// directly; the module's packages relative to the module) against l's
// rules and says, for each import that breaks one, which package, through
// which chain of imports, and what rule.
func (l layout) violations(imports map[string][]string) []string {
	var out []string
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, from := range pkgs {
		for _, r := range l.rules() {
			for _, chain := range reach(imports, from, r.direct) {
				if to := chain[len(chain)-1]; r.forbids(from, to) {
					out = append(out, strings.Join(chain, " → ")+": "+r.name)
				}
			}
		}
	}
	return out
}

// reach lists the packages from imports, directly or (unless direct)
// through other packages, each as the shortest chain of imports that leads
// there, in a stable order.
func reach(imports map[string][]string, from string, direct bool) [][]string {
	chains := [][]string{}
	seen := map[string]bool{from: true}
	queue := [][]string{{from}}
	for len(queue) > 0 {
		chain := queue[0]
		queue = queue[1:]
		for _, next := range imports[chain[len(chain)-1]] {
			if seen[next] {
				continue
			}
			seen[next] = true
			c := append(slices.Clip(chain), next)
			chains = append(chains, c)
			if !direct {
				queue = append(queue, c)
			}
		}
		if direct {
			break
		}
	}
	return chains
}

// moduleImports lists what each of the module's packages imports (tests
// aside), as `go list` sees it, with the module's paths made relative.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}}{{"\t"}}{{.}}{{end}}`, module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s/...: %v\n%s", module, err, out)
	}
	// A package built for one command's profile (PGO) is listed as
	// "path [command]"; the path is what matters here.
	rel := func(p string) string {
		p, _, _ = strings.Cut(p, " [")
		if p == module {
			return "."
		}
		return strings.TrimPrefix(p, module+"/")
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Split(line, "\t")
		pkg := rel(fields[0])
		imports[pkg] = []string{}
		for _, imp := range fields[1:] {
			imports[pkg] = append(imports[pkg], rel(imp))
		}
	}
	return imports
}

// TestLayers checks the module's real imports against the layering rules,
// and that every package the layout names exists, so that moving one
// without updating harnestLayout fails here instead of checking nothing.
func TestLayers(t *testing.T) {
	imports := moduleImports(t)
	l := harnestLayout
	named := append(append(append([]string{l.commands, l.root, l.internal, l.core, l.sender, l.storeChooser}, l.doors...), l.backends...), l.storeImpls...)
	for _, path := range named {
		found := false
		for pkg := range imports {
			found = found || under(pkg, path)
		}
		if !found {
			t.Errorf("harnestLayout names %s, which is no package of the module: update the table", path)
		}
	}
	for _, v := range l.violations(imports) {
		t.Error(v)
	}
}

// TestLayerRules runs the rule check on small import graphs: the allowed
// shape passes, and each bad import is reported with its rule.
func TestLayerRules(t *testing.T) {
	// good is the shape of the module: every arrow one way.
	good := map[string][]string{
		"cmd/harnest":       {"server", "config"},
		"server":            {"neutral", "a2a", "relay", "routerapi", "backend", "backend/router", "internal/metrics", "outbox", "store/stores"},
		"server/servertest": {"server", "store/stores"},
		"neutral":           {"runtime", "internal/httpapi", "neutral/apidoc"},
		"neutral/apidoc":    {"internal/media"},
		"a2a":               {"runtime", "outbox", "store", "net/http"},
		"outbox":            {"runtime", "internal/netguard", "store", "net/http"},
		"internal/netguard": {"net/http"},
		"internal/httpapi":  {"net/http"},
		"relay":             {"runtime", "store", "relay/agent", "relay/recipes", "relay/text", "relay/tools"},
		"relay/agent":       {"runtime", "store", "config"},
		"relay/recipes":     {"relay/text"},
		"relay/tools":       {"runtime", "store", "config", "internal/toolrun", "relay/text"},
		"routerapi":         {"runtime", "store"},
		"internal/metrics":  {"runtime", "store"},
		"internal/toolrun":  {"config", "internal/program"},
		"backend":           {"backend/router", "internal/toolrun", "runtime"},
		"backend/router":    {"runtime", "store"},
		"runtime":           {"store", "internal/media"},
		"store/stores":      {"store", "store/memstore", "store/redisstore"},
		"store/redisstore":  {"store", "github.com/redis/go-redis/v9"},
	}
	with := func(from string, to ...string) map[string][]string {
		g := map[string][]string{}
		for p, deps := range good {
			g[p] = slices.Clone(deps)
		}
		g[from] = append(g[from], to...)
		return g
	}
	cases := []struct {
		name    string
		layout  layout
		imports map[string][]string
		want    []string
	}{
		{"the module's shape", harnestLayout, good, nil},
		{"the relay imports a backend", harnestLayout, with("relay", "backend/tools"),
			[]string{"relay → backend/tools: a door (the relay included) depends on no backend"}},
		{"the relay's agent imports a backend", harnestLayout, with("relay/agent", "backend/router"),
			[]string{
				"relay → relay/agent → backend/router: a door (the relay included) depends on no backend",
				"relay/agent → backend/router: a door (the relay included) depends on no backend",
			}},
		{"a door imports the router backend", harnestLayout, with("routerapi", "backend/router"),
			[]string{"routerapi → backend/router: a door (the relay included) depends on no backend"}},
		{"a door reaches a backend through a helper", harnestLayout, with("internal/toolrun", "backend/chat"),
			[]string{
				"internal/toolrun → backend/chat: internal/ depends on no door, backend or composition root",
				"relay → relay/tools → internal/toolrun → backend/chat: a door (the relay included) depends on no backend",
				"relay/tools → internal/toolrun → backend/chat: a door (the relay included) depends on no backend",
			}},
		{"a helper imports a door", harnestLayout, with("internal/metrics", "live"),
			[]string{"internal/metrics → live: internal/ depends on no door, backend or composition root"}},
		{"a door imports another", harnestLayout, with("a2a", "agui"),
			[]string{"a2a → agui: a door depends on no other door"}},
		{"a door reaches another through a helper", harnestLayout, with("internal/httpapi", "live"),
			[]string{
				"internal/httpapi → live: internal/ depends on no door, backend or composition root",
				"neutral → internal/httpapi → live: a door depends on no other door",
			}},
		{"a backend imports a store implementation", harnestLayout, with("backend/router", "store/memstore"),
			[]string{"backend/router → store/memstore: only the store chooser and the composition root import a store implementation"}},
		{"a door imports the store chooser", harnestLayout, with("relay", "store/stores"),
			[]string{"relay → store/stores: only the composition root imports the store chooser"}},
		{"the core imports a Redis client", harnestLayout, with("runtime", "github.com/redis/go-redis/v9"),
			[]string{"runtime → github.com/redis/go-redis/v9: only a store implementation imports a Redis client"}},
		{"the core imports net/http", harnestLayout, with("runtime", "net/http"),
			[]string{"runtime → net/http: the core serves and sends no HTTP: it depends on no net/http"}},
		{"the core reaches net/http through the address guard", harnestLayout, with("runtime", "internal/netguard"),
			[]string{"runtime → internal/netguard → net/http: the core serves and sends no HTTP: it depends on no net/http"}},
		{"the outbox's sender imports a door", harnestLayout, with("outbox", "a2a"),
			[]string{"outbox → a2a: the outbox's sender depends on no door or backend"}},
		{"a backend imports the composition root", harnestLayout, with("backend", "server"),
			[]string{"backend → server: only the commands depend on the composition root"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.layout.violations(c.imports)
			if !slices.Equal(got, c.want) {
				t.Errorf("violations:\n got  %q\n want %q", got, c.want)
			}
		})
	}
}
