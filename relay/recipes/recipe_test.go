package recipes_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harnest/harnest/relay/recipes"
	"github.com/harnest/harnest/relay/recipes/recipetest"
)

// at returns the object at a dotted path of m ("" is m itself).
func at(m map[string]any, path string) map[string]any {
	if path == "" {
		return m
	}
	for _, key := range strings.Split(path, ".") {
		m = m[key].(map[string]any)
	}
	return m
}

// set returns a change that sets (or, for nil, removes) the field at a
// dotted path.
func set(path string, v any) func(map[string]any) {
	return func(m map[string]any) {
		parent, key := "", path
		if i := strings.LastIndex(path, "."); i >= 0 {
			parent, key = path[:i], path[i+1:]
		}
		if v == nil {
			delete(at(m, parent), key)
			return
		}
		at(m, parent)[key] = v
	}
}

func parse(t *testing.T, m map[string]any) (recipes.Recipe, []string) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return recipes.Parse(b, "my-harness")
}

func TestValidRecipe(t *testing.T) {
	rc, problems := parse(t, recipetest.Valid())
	if len(problems) != 0 {
		t.Fatalf("problems %q", problems)
	}
	if rc.ID != "my-harness" || rc.Revision != 7 || rc.Evidence.Status != "ready" || !slices.Equal(rc.Contract.Operations, []string{"answer", "stream"}) ||
		!rc.Contract.Cancellation || rc.Card.Mapping["kind"] != "recipe_id" || !rc.Pairable() {
		t.Fatalf("recipe %+v", rc)
	}
	// A non-ready recipe without a connector, and one with a hosted variant.
	drafted := recipetest.Valid()
	for _, change := range []func(map[string]any){set("evidence.status", "drafted"), set("evidence.measured_by", nil),
		set("connector", "none"), set("pairing.instruction_id", "review-before-connecting"), set("contract.operations", []any{}),
		set("hosted", map[string]any{"adapter": "cloud-runner", "tools": []any{"search"}, "environment": "a hosted sandbox"}),
		set("stage_words.hosted", "The hosted harness is on stage.")} {
		change(drafted)
	}
	if rc, problems := parse(t, drafted); len(problems) != 0 || rc.Hosted == nil || rc.Contract.Operations == nil {
		t.Fatalf("drafted recipe: %+v %q", rc, problems)
	}
	noDoor := recipetest.Valid()
	for _, change := range []func(map[string]any){set("evidence.status", "no-door"), set("evidence.measured_by", nil),
		set("connector", "none"), set("pairing.instruction_id", "no-supported-door")} {
		change(noDoor)
	}
	if rc, problems := parse(t, noDoor); len(problems) != 0 || rc.Pairable() {
		t.Fatalf("no-door recipe: %+v %q", rc, problems)
	}
}

// Each rule of the schema, broken once: the problem names the field.
func TestRecipeRules(t *testing.T) {
	cases := []struct {
		name   string
		change func(map[string]any)
		want   string // the start of a problem
	}{
		{"wrong schema", set("schema", "netshow-harness-recipe-1"), `schema: must be "harnest-recipe-1"`},
		{"no schema", set("schema", nil), "schema: is required"},
		{"id not the file name", set("id", "other"), `id: is "other" but the file is my-harness.json`},
		{"id not a kind", set("id", "My Harness"), "id: may use lower-case letters"},
		{"id a number", set("id", 3), "id: must be a string, not the number 3"},
		{"revision zero", set("revision", 0), "revision: must be a whole number from 1 through 1,000,000"},
		{"revision too big", set("revision", 1_000_001), "revision: must be a whole number from 1 through 1,000,000"},
		{"revision a fraction", set("revision", 1.5), "revision: must be a whole number, not the number 1.5"},
		{"revision a string", set("revision", "1"), "revision: must be a whole number, not a string"},
		{"label blank", set("label", "   "), "label: must be nonblank plain text of at most 60 characters"},
		{"label too long", set("label", strings.Repeat("a", 61)), "label: must be nonblank plain text of at most 60 characters"},
		{"label markup", set("label", "<b>Mine</b>"), "label: must be nonblank plain text"},
		{"transport", set("transport", "relay-push-v1"), `transport: must be "relay-poll-v1"`},
		{"connector", set("connector", "harness-connector-shell"), `connector: is "harness-connector-shell"; it must be one of`},
		{"pairing unknown field", set("pairing.code", "x"), "pairing.code: is not a recipe field"},
		{"instruction", set("pairing.instruction_id", "just-connect"), `pairing.instruction_id: is "just-connect"`},
		{"no card mapping", set("card.mapping", nil), "card.mapping: is required"},
		{"mapping name", set("card.mapping.name", "agent_choice"), `card.mapping.name: must be "owner_choice"`},
		{"mapping kind", set("card.mapping.kind", "owner_choice"), `card.mapping.kind: must be "recipe_id"`},
		{"mapping skills missing", set("card.mapping.skills", nil), "card.mapping.skills: is required"},
		{"mapping extra", set("card.mapping.voice", "x"), "card.mapping.voice: is not a recipe field"},
		{"connected words", set("stage_words.connected", "Connected."), `stage_words.connected: must be "Home. Connected."`},
		{"unavailable too long", set("stage_words.unavailable", strings.Repeat("a", 161)), "stage_words.unavailable: must be nonblank plain text of at most 160"},
		{"unavailable missing", set("stage_words.unavailable", nil), "stage_words.unavailable: is required"},
		{"hosted words without hosted", set("stage_words.hosted", "Hosted."), "stage_words.hosted: a recipe carries stage_words.hosted exactly when"},
		{"hosted without words", set("hosted", map[string]any{"adapter": "a", "tools": []any{}, "environment": "e"}), "stage_words.hosted: a recipe carries"},
		{"hosted unknown field", set("hosted", map[string]any{"adapter": "a", "tools": []any{}, "environment": "e", "price": 1}), "hosted.price: is not a recipe field"},
		{"hosted tools not a list", set("hosted", map[string]any{"adapter": "a", "tools": "search", "environment": "e"}), "hosted.tools: must be a list of strings"},
		{"checked_on not a date", set("evidence.checked_on", "2026-02-30"), `evidence.checked_on: is "2026-02-30"; it must be a real date`},
		{"checked_on format", set("evidence.checked_on", "30/11/2026"), "evidence.checked_on: is"},
		{"status", set("evidence.status", "shipped"), `evidence.status: is "shipped"; it must be one of ready, drafted, catalog-only or no-door`},
		{"measured_by format", set("evidence.measured_by", "my-harness sha256 abc"), "evidence.measured_by: must be the measured command"},
		{"measured_by upper-case hex", set("evidence.measured_by", "h --help sha256 "+strings.Repeat("AB", 32)), "evidence.measured_by: must be the measured command"},
		{"contract version", set("contract.version", 2), "contract.version: must be 1"},
		{"unknown operation", set("contract.operations", []any{"answer", "teleport"}), `contract.operations: is "teleport"; it must be one of`},
		{"operation twice", set("contract.operations", []any{"answer", "answer"}), `contract.operations: lists "answer" twice`},
		{"operations missing", set("contract.operations", nil), "contract.operations: is required"},
		{"cancellation not a boolean", set("contract.cancellation", "yes"), "contract.cancellation: must be true or false, not a string"},
		{"resume missing", set("contract.resume", nil), "contract.resume: is required"},
		{"unknown top-level field", set("command", "rm -rf /"), "command: is not a recipe field"},
		{"unknown evidence field", set("evidence.by", "me"), "evidence.by: is not a recipe field"},
		{"evidence not an object", set("evidence", "ready"), "evidence: must be an object, not a string"},
		// The rules between fields.
		{"ready without a connector", set("connector", "none"), "connector: a ready recipe needs a real connector"},
		{"ready without the private code", set("pairing.instruction_id", "review-before-connecting"), "pairing.instruction_id: a ready recipe pairs with private-code-in-connector"},
		{"drafted with a connector", func(m map[string]any) {
			set("evidence.status", "drafted")(m)
			set("evidence.measured_by", nil)(m)
		}, "connector: must be none"},
		{"measured_by on a drafted recipe", func(m map[string]any) {
			set("evidence.status", "drafted")(m)
			set("connector", "none")(m)
		}, "evidence.measured_by: only a ready recipe may carry it"},
		{"no-door with a door", func(m map[string]any) {
			set("evidence.status", "no-door")(m)
			set("evidence.measured_by", nil)(m)
			set("connector", "none")(m)
			set("pairing.instruction_id", "review-before-connecting")(m)
		}, "pairing.instruction_id: a no-door recipe needs no-supported-door"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := recipetest.Valid()
			c.change(m)
			_, problems := parse(t, m)
			for _, p := range problems {
				if strings.HasPrefix(p, c.want) {
					return
				}
			}
			t.Fatalf("problems %q; want one that starts with %q", problems, c.want)
		})
	}
	for _, notJSON := range []string{"", "[]", "null", `{"schema":`, `"harnest-recipe-1"`} {
		if _, problems := recipes.Parse([]byte(notJSON), "my-harness"); len(problems) != 1 || !strings.Contains(problems[0], "one JSON object") {
			t.Errorf("%q: problems %q", notJSON, problems)
		}
	}
}

func TestBuiltinRecipesAreValid(t *testing.T) {
	rs, err := recipes.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, rc := range rs.List() {
		ids = append(ids, rc.ID)
	}
	want := []string{"claude-code", "cli", "codex", "gemini-cli", "google-adk", "langgraph", "openai-agents"}
	if !slices.Equal(ids, want) {
		t.Fatalf("built-in recipes %q, want %q", ids, want)
	}
	// Each file on its own, as it is in the repository.
	for _, id := range want {
		data, err := os.ReadFile(id + ".json")
		if err != nil {
			t.Fatal(err)
		}
		if _, problems := recipes.Parse(data, id); len(problems) != 0 {
			t.Errorf("recipes/%s.json: %q", id, problems)
		}
	}
}

func TestFolderRecipes(t *testing.T) {
	folder := t.TempDir()
	if rs, err := recipes.Load(folder); err != nil || len(rs.List()) != 7 {
		t.Fatalf("a folder without recipes: %v", err)
	}
	recipetest.Write(t, folder, "my-harness.json", recipetest.Valid())
	recipetest.Write(t, folder, "codex.json", recipetest.CodexOverride())
	if err := os.WriteFile(filepath.Join(folder, "recipes", "README.md"), []byte("not a recipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := recipes.Load(folder)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.List()) != 8 {
		t.Fatalf("%d recipes, want the 7 built-in ones and the folder's new one", len(rs.List()))
	}
	if rc, _ := rs.Get("codex"); rc.Revision != 2 || rc.Label != "Our reviewed Codex" {
		t.Fatalf("codex %+v, want the folder's recipe over the built-in one", rc)
	}
	if problems := recipes.Check(folder); len(problems) != 0 {
		t.Fatalf("CheckRecipes %q", problems)
	}

	// Invalid files: every problem, each naming the file and the field.
	bad := recipetest.Valid()
	bad["label"], bad["extra"] = "", true
	recipetest.Write(t, folder, "my-harness.json", bad)
	recipetest.Write(t, folder, "other.json", recipetest.Valid()) // its id is my-harness
	problems := recipes.Check(folder)
	want := []string{
		"recipes/my-harness.json: extra: is not a recipe field",
		"recipes/my-harness.json: label: must be nonblank plain text",
		`recipes/other.json: id: is "my-harness" but the file is other.json`,
	}
	if len(problems) != len(want) {
		t.Fatalf("problems %q, want %d", problems, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d %q, want it to start with %q", i, problems[i], w)
		}
	}
	var rp *recipes.Problems
	if _, err := recipes.Load(folder); err == nil || !errors.As(err, &rp) || len(rp.Lines) != 3 {
		t.Fatalf("LoadRecipes of invalid recipes: %v", err)
	}
}
