package relay

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// builtinRecipeFiles are the reviewed recipes shipped with harnest, one
// file per harness kind.
//
//go:embed recipes/*.json
var builtinRecipeFiles embed.FS

// RecipesDir is the folder of an agent folder that holds its own recipes
// (recipes/<id>.json); a folder recipe replaces the built-in one of the
// same id.
const RecipesDir = "recipes"

// maxRecipeBytes bounds one recipe file.
const maxRecipeBytes = 64 << 10

// Recipes are the recipes a relay offers: the built-in ones, with an agent
// folder's recipes laid over them.
type Recipes struct {
	byID map[string]Recipe
}

// Get returns the recipe of an id.
func (rs *Recipes) Get(id string) (Recipe, bool) {
	rc, ok := rs.byID[id]
	return rc, ok
}

// List returns every recipe, by id.
func (rs *Recipes) List() []Recipe {
	out := make([]Recipe, 0, len(rs.byID))
	for _, rc := range rs.byID {
		out = append(out, rc)
	}
	slices.SortFunc(out, func(a, b Recipe) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// RecipeProblems are the problems of an agent folder's recipes, one line
// each, naming the file and the field: "recipes/codex.json: label: ...".
type RecipeProblems struct {
	Lines []string
}

// Error joins the lines.
func (p *RecipeProblems) Error() string {
	return "invalid recipes:\n" + strings.Join(p.Lines, "\n")
}

// BuiltinRecipes returns the built-in recipes alone.
func BuiltinRecipes() (*Recipes, error) { return LoadRecipes("") }

// LoadRecipes reads the built-in recipes and then folder's recipes/*.json
// (none when folder is "" or has no recipes folder). An invalid recipe
// is a *RecipeProblems error that lists every problem.
func LoadRecipes(folder string) (*Recipes, error) {
	rs := &Recipes{byID: map[string]Recipe{}}
	var problems []string
	builtin, _ := fs.Glob(builtinRecipeFiles, "recipes/*.json")
	for _, name := range builtin {
		data, err := builtinRecipeFiles.ReadFile(name)
		problems = append(problems, rs.add("built-in "+name, filepath.Base(name), data, err)...)
	}
	if folder != "" {
		problems = append(problems, rs.addFolder(folder)...)
	}
	if len(problems) > 0 {
		return nil, &RecipeProblems{Lines: problems}
	}
	return rs, nil
}

// CheckRecipes lists the problems of folder's recipes (and of the
// built-in ones), one line each; none when they are all valid. harnest
// check prints them.
func CheckRecipes(folder string) []string {
	_, err := LoadRecipes(folder)
	var problems *RecipeProblems
	if errors.As(err, &problems) {
		return problems.Lines
	}
	if err != nil {
		return []string{err.Error()}
	}
	return nil
}

// addFolder reads folder's recipes/*.json.
func (rs *Recipes) addFolder(folder string) []string {
	dir := filepath.Join(folder, RecipesDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []string{RecipesDir + ": cannot be read as a folder of recipe files (" + problemOf(err) + ")"}
	}
	var problems []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := readRecipeFile(filepath.Join(dir, e.Name()))
		problems = append(problems, rs.add(RecipesDir+"/"+e.Name(), e.Name(), data, err)...)
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
func (rs *Recipes) add(where, fileName string, data []byte, readErr error) []string {
	if readErr != nil {
		return []string{where + ": cannot be read (" + problemOf(readErr) + ")"}
	}
	rc, problems := ParseRecipe(data, strings.TrimSuffix(fileName, ".json"))
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

// builtinOnly is the recipes of a Relay that was given none: the built-in
// recipes, loaded once.
var builtinOnly = sync.OnceValue(func() *Recipes {
	rs, err := BuiltinRecipes()
	if err != nil {
		panic("relay: a built-in recipe is invalid: " + err.Error()) // the tests check every built-in recipe
	}
	return rs
})

// recipes returns the relay's recipes.
func (r *Relay) recipes() *Recipes { return r.recipeSet }

// registerRecipes mounts the recipe routes.
func (r *Relay) registerRecipes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+OwnerPrefix+"recipes", r.owner(r.handleRecipes))
}

// GET /owner/outside-agents/recipes: every recipe the relay offers, by id.
func (r *Relay) handleRecipes(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, map[string]any{"recipes": r.recipes().List()})
}
