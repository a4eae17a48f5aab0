package recipes

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// builtinRecipeFiles are the reviewed recipes shipped with harnest, one
// file per harness kind.
//
//go:embed *.json
var builtinRecipeFiles embed.FS

// Dir is the folder of an agent folder that holds its own recipes
// (recipes/<id>.json); a folder recipe replaces the built-in one of the
// same id.
const Dir = "recipes"

// maxRecipeBytes bounds one recipe file.
const maxRecipeBytes = 64 << 10

// A Set is the recipes a relay offers: the built-in ones, with an agent
// folder's recipes laid over them.
type Set struct {
	byID map[string]Recipe
}

// Get returns the recipe of an id.
func (rs *Set) Get(id string) (Recipe, bool) {
	rc, ok := rs.byID[id]
	return rc, ok
}

// List returns every recipe, by id.
func (rs *Set) List() []Recipe {
	out := make([]Recipe, 0, len(rs.byID))
	for _, rc := range rs.byID {
		out = append(out, rc)
	}
	slices.SortFunc(out, func(a, b Recipe) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Problems are the problems of an agent folder's recipes, one line
// each, naming the file and the field: "recipes/codex.json: label: ...".
type Problems struct {
	Lines []string
}

// Error joins the lines.
func (p *Problems) Error() string {
	return "invalid recipes:\n" + strings.Join(p.Lines, "\n")
}

// Builtin returns the built-in recipes alone.
func Builtin() (*Set, error) { return Load("") }

// Load reads the built-in recipes and then folder's recipes/*.json
// (none when folder is "" or has no recipes folder). An invalid recipe
// is a *Problems error that lists every problem.
func Load(folder string) (*Set, error) {
	rs := &Set{byID: map[string]Recipe{}}
	var problems []string
	builtin, _ := fs.Glob(builtinRecipeFiles, "*.json")
	for _, name := range builtin {
		data, err := builtinRecipeFiles.ReadFile(name)
		problems = append(problems, rs.add("built-in "+Dir+"/"+name, name, data, err)...)
	}
	if folder != "" {
		problems = append(problems, rs.addFolder(folder)...)
	}
	if len(problems) > 0 {
		return nil, &Problems{Lines: problems}
	}
	return rs, nil
}

// Check lists the problems of folder's recipes (and of the
// built-in ones), one line each; none when they are all valid. harnest
// check prints them.
func Check(folder string) []string {
	_, err := Load(folder)
	var problems *Problems
	if errors.As(err, &problems) {
		return problems.Lines
	}
	if err != nil {
		return []string{err.Error()}
	}
	return nil
}

// addFolder reads folder's recipes/*.json.
func (rs *Set) addFolder(folder string) []string {
	dir := filepath.Join(folder, Dir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []string{Dir + ": cannot be read as a folder of recipe files (" + problemOf(err) + ")"}
	}
	var problems []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := readRecipeFile(filepath.Join(dir, e.Name()))
		problems = append(problems, rs.add(Dir+"/"+e.Name(), e.Name(), data, err)...)
	}
	return problems
}

// readRecipeFile reads one recipe file of at most maxRecipeBytes.
func readRecipeFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxRecipeBytes {
		return nil, fmt.Errorf("the file is larger than 64 KB")
	}
	return os.ReadFile(path)
}

// add validates one recipe file (shown as where) and keeps it, replacing
// a recipe of the same id; it returns the file's problems.
func (rs *Set) add(where, fileName string, data []byte, readErr error) []string {
	if readErr != nil {
		return []string{where + ": cannot be read (" + problemOf(readErr) + ")"}
	}
	rc, problems := Parse(data, strings.TrimSuffix(fileName, ".json"))
	for i, p := range problems {
		problems[i] = where + ": " + p
	}
	if len(problems) == 0 {
		rs.byID[rc.ID] = rc
	}
	return problems
}

// problemOf is an error's text without the path the caller already named.
func problemOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// BuiltinOnly is the built-in recipes alone, loaded once: the recipes of a
// relay that was given none.
var BuiltinOnly = sync.OnceValue(func() *Set {
	rs, err := Builtin()
	if err != nil {
		panic("relay/recipes: a built-in recipe is invalid: " + err.Error()) // the tests check every built-in recipe
	}
	return rs
})
