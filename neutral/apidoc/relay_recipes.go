package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Outside agents: what a participant's card and its recipe say. The look
// comes from the card's alive extension (relay/look.go, internal/alive);
// recipes are the reviewed connection metadata of relay/recipe.go and
// relay/recipes.go.

// aliveExtensionURI is internal/alive.ExtensionURI, the uri of the alive
// card extension.
const aliveExtensionURI = "https://netshow.ai/a2a/ext/alive/v1"

// houseLooks are the looks internal/alive accepts (alive.IsHouseLook).
var houseLooks = []string{
	"pip", "robo", "byte", "owl", "cat", "fox", "drake", "momo",
	"scout", "dots-purple", "dots-yellow", "dots-blue", "dots-green",
	"pollen", "grok", "jolly",
}

// Values a recipe's fields take (relay/recipe.go).
var (
	recipeConnectors   = []string{"harness-connector-echo", "harness-connector-exec", "none"}
	recipeInstructions = []string{"private-code-in-connector", "review-before-connecting", "no-supported-door"}
	recipeStatuses     = []string{"ready", "drafted", "catalog-only", "no-door"}
	recipeOperations   = []string{"answer", "stream", "tools_at_home", "pieces", "browser_relay", "agent_computer", "stage_lines"}
)

func (b *builder) defineRelayLook() {
	color := func(desc string) *openapi3.SchemaRef {
		return describe(openapi3.NewStringSchema().WithPattern(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`), desc+": `#rgb` or `#rrggbb`.")
	}
	b.define("RelayLook", object("The participant's look, from the alive extension of the card it paired with "+
		"(what its `params` give, its `alive_json` file filling the rest). Absent for the standard outside-agent face; "+
		"any field may be missing.",
		opt("look", enumStr("One of the house looks.", houseLooks...)),
		opt("colors", object("The look's colors.",
			opt("line", color("The line color")),
			opt("background", color("The background color")),
		)),
		opt("display_name", boundedStr("The name to show: plain text, at most 60 characters.", 1, 60)),
	))
}

func (b *builder) defineRelayRecipeSchemas() {
	text := func(desc string) *openapi3.SchemaRef { return str(desc) }
	b.define("RelayRecipe", object("A recipe (schema `harnest-recipe-1`): reviewed connection metadata for one kind of "+
		"outside agent (a harness). It is not a command to run, nor a permission.",
		req("schema", enumStr("Always `harnest-recipe-1`.", "harnest-recipe-1")),
		req("id", b.ref("RelayParticipantKind")),
		req("revision", boundedInt("From 1 to 1,000,000.", 1, 1_000_000)),
		req("label", boundedStr("What the harness is, at most 60 characters.", 1, 60)),
		req("transport", enumStr("Always `relay-poll-v1`.", relayProtocol)),
		req("connector", enumStr("What connects it: `none` unless `evidence.status` is `ready`.", recipeConnectors...)),
		req("pairing", object("How the owner pairs it.",
			req("instruction_id", enumStr("`no-supported-door`: no code can pair it.", recipeInstructions...)))),
		req("card", object("How its card is filled in.",
			req("mapping", mapOf("Always `name` = `owner_choice`, `kind` = `recipe_id`, `skills` = `declared_skills`.", str(""))))),
		req("stage_words", object("The reviewed words the owner's stage shows.",
			req("connected", enumStr("Always `Home. Connected.`", "Home. Connected.")),
			req("unavailable", boundedStr("Shown while it is not connected, at most 160 characters.", 1, 160)),
			opt("hosted", text("Shown for the hosted variant; exactly when `hosted` is present.")))),
		req("evidence", object("How far the recipe was measured.",
			req("checked_on", describe(openapi3.NewStringSchema().WithFormat("date"), "When it was last checked (YYYY-MM-DD).")),
			req("status", enumStr("", recipeStatuses...)),
			opt("measured_by", text("`<command> --help sha256 <64 hex>`; only on `ready` recipes.")))),
		req("contract", object("What the harness has shown it can do.",
			req("version", describe(openapi3.NewIntegerSchema().WithEnum(1), "Always 1.")),
			req("operations", arrayOf("", enumStr("", recipeOperations...))),
			req("cancellation", describe(openapi3.NewBoolSchema(), "")),
			req("resume", describe(openapi3.NewBoolSchema(), "")))),
		opt("hosted", object("A hosted variant of the harness.",
			req("adapter", text("The adapter.")),
			req("tools", arrayOf("Tool names.", str(""))),
			req("environment", text("The environment.")))),
	))
	b.define("RelayRecipes", object("Every recipe the server offers, by id.",
		req("recipes", arrayOf("The built-in recipes, with the agent folder's `recipes/<id>.json` laid over them.",
			b.ref("RelayRecipe")))))
}

func (b *builder) addRelayRecipes(doc *openapi3.T) {
	doc.AddOperation(relayOwner+"recipes", http.MethodGet, b.ownerOp("listRelayRecipes", "List the recipes",
		"The recipes pairing codes may be created for (`POST /owner/outside-agents/pairings` with "+
			"`{\"name\", \"recipe\"}`): the built-in ones (`cli`, `claude-code`, `codex`, `gemini-cli`, `openai-agents`, "+
			"`google-adk`, `langgraph`) and the agent folder's, which replace a built-in one of the same id.").
		answers(
			jsonReply(200, "Every recipe, by id.", b.ref("RelayRecipes")),
			b.failure(404, "The caller is not the owner (`not_found`)."),
		).done())
}
