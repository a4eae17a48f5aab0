package relay_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/relay/recipes"
	"github.com/harnest/harnest/relay/recipes/recipetest"
	"github.com/harnest/harnest/server"
	"github.com/harnest/harnest/server/servertest"
)

// recipeFolder copies examples/hello into a temporary agent folder and
// adds recipes: its own codex (revision 2), a new ready one (my-harness)
// and one without a door (far-away).
func recipeFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "examples", "hello"))); err != nil {
		t.Fatal(err)
	}
	recipetest.Write(t, dir, "codex.json", recipetest.CodexOverride())
	recipetest.Write(t, dir, "my-harness.json", recipetest.Valid())
	far := recipetest.Valid()
	far["id"] = "far-away"
	evidence := far["evidence"].(map[string]any)
	evidence["status"] = "no-door"
	delete(evidence, "measured_by")
	far["connector"], far["pairing"] = "none", map[string]any{"instruction_id": "no-supported-door"}
	recipetest.Write(t, dir, "far-away.json", far)
	return dir
}

// listedRecipes are the recipes the owner lists, by id.
func listedRecipes(t *testing.T, e *env) map[string]map[string]any {
	t.Helper()
	r := e.do("GET", "/owner/outside-agents/recipes", ownerToken, "")
	mustStatus(t, r, 200)
	var v struct{ Recipes []map[string]any }
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	var last string
	for _, rc := range v.Recipes {
		id := rc["id"].(string)
		if id <= last {
			t.Fatalf("recipes not listed by id: %q after %q", id, last)
		}
		last, out[id] = id, rc
	}
	return out
}

func TestRecipesListedForTheOwner(t *testing.T) {
	s := envSetup{}.serverSetup(&clock{})
	s.Folder = recipeFolder(t)
	servertest.EachStore(t, s, func(t *testing.T, ts *servertest.Server) {
		e := newEnvOf(ts, &clock{})
		mustCode(t, e.do("GET", "/owner/outside-agents/recipes", visitorToken, ""), 404, "not_found")
		mustStatus(t, e.do("GET", "/owner/outside-agents/recipes", "", ""), 401)
		listed := listedRecipes(t, e)
		for _, id := range []string{"cli", "claude-code", "codex", "gemini-cli", "openai-agents", "google-adk", "langgraph", "my-harness", "far-away"} {
			if listed[id] == nil {
				t.Errorf("recipe %s not listed", id)
			}
		}
		if len(listed) != 9 {
			t.Errorf("%d recipes listed, want 9", len(listed))
		}
		codex := listed["codex"]
		if codex["revision"] != float64(2) || codex["label"] != "Our reviewed Codex" || codex["schema"] != "harnest-recipe-1" {
			t.Fatalf("codex %v, want the folder's recipe", codex)
		}
		// What is listed is a recipe: it parses again as one.
		b, _ := json.Marshal(codex)
		if _, problems := recipes.Parse(b, "codex"); len(problems) != 0 {
			t.Fatalf("the listed codex recipe is not a valid recipe: %q", problems)
		}
	})
}

func TestPairingForARecipe(t *testing.T) {
	s := envSetup{}.serverSetup(&clock{})
	s.Folder = recipeFolder(t)
	servertest.EachStoreReplicas(t, 2, s, func(t *testing.T, replicas []*servertest.Server) {
		a, b := newEnvOf(replicas[0], &clock{}), newEnvOf(replicas[1], &clock{})
		create := func(body string) servertest.Reply {
			return a.do("POST", "/owner/outside-agents/pairings", ownerToken, body)
		}
		mustCode(t, create(`{"name":"My Codex","recipe":"nope"}`), 400, "unknown_recipe")
		mustCode(t, create(`{"name":"My Codex","recipe":"Not A Kind!"}`), 400, "unknown_recipe")
		mustCode(t, create(`{"name":"My Codex","recipe":"codex","kind":"cli"}`), 400, "recipe_kind_mismatch")
		mustCode(t, create(`{"name":"Far","recipe":"far-away"}`), 400, "recipe_no_door")
		mustCode(t, create(`{"name":"My Codex","recipe":7}`), 422, "invalid_request")
		mustCode(t, create(`{"name":"My Codex"}`), 422, "invalid_request") // neither kind nor recipe

		r := create(`{"name":"My Codex","recipe":"codex"}`)
		mustStatus(t, r, 201)
		v := r.JSON(t)
		if v["kind"] != "codex" || v["recipe"] != "codex" {
			t.Fatalf("code for a recipe: %s", r.Body)
		}
		code := v["code"].(string)
		exchange := func(kind string) servertest.Reply {
			return b.do("POST", "/api/outside-agents/v1/pairings/exchange", "",
				`{"code":"`+code+`","card":{"name":"My Codex","kind":"`+kind+`"}}`)
		}
		mustCode(t, exchange("cli"), 422, "card_mismatch") // the code is kept
		r = exchange("codex")
		mustStatus(t, r, 201)
		pid := r.JSON(t)["participant_id"].(string)
		if ids := a.participantIDs(ownerToken); len(ids) != 1 || ids[0] != pid {
			t.Fatalf("participants %v, want %s", ids, pid)
		}
		// The same with kind given as the recipe's id, for a folder recipe.
		r = create(`{"name":"Mine","recipe":"my-harness","kind":"my-harness"}`)
		mustStatus(t, r, 201)
		r = b.do("POST", "/api/outside-agents/v1/pairings/exchange", "",
			`{"code":"`+r.JSON(t)["code"].(string)+`","card":{"name":"Mine","kind":"my-harness"}}`)
		mustStatus(t, r, 201)
	})
}

func TestServerRefusesInvalidFolderRecipes(t *testing.T) {
	dir := recipeFolder(t)
	bad := recipetest.Valid()
	bad["revision"] = 0
	recipetest.Write(t, dir, "my-harness.json", bad)
	f, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(context.Background(), f, server.Options{})
	if err == nil {
		srv.Close()
		t.Fatal("a server started with an invalid recipe")
	}
	if !strings.Contains(err.Error(), "recipes/my-harness.json: revision: must be a whole number from 1 through 1,000,000") {
		t.Fatalf("error %q does not name the file and field", err)
	}
}
