package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Evals: the last run of `harnest eval` (package eval)

const tagEvals = "Evals"

func evalRunSchema() *openapi3.SchemaRef {
	number := func(desc string) *openapi3.SchemaRef { return describe(openapi3.NewFloat64Schema(), desc) }
	row := object("One case of the run.",
		req("name", str("The case's name.")),
		req("passed", boolean("Every check of every turn passed.", false)),
		req("turns", integer("How many turns ran.")),
		req("durationMs", integer("How long the case took.")),
		opt("failure", str("The first failed check, such as `turn 2: contains: ...`.")),
	)
	return object("The summary of an eval run: its totals and one row per case (the answers are in the run's own JSON report).",
		req("agent", str("The agent's name (`metadata.name`).")),
		req("casesFile", str("The cases file the run read.")),
		req("startedAt", describe(openapi3.NewDateTimeSchema(), "When the run started.")),
		req("durationMs", integer("How long the run took.")),
		req("total", integer("How many cases ran.")),
		req("passed", integer("How many passed.")),
		req("failed", integer("How many failed.")),
		req("passRate", number("passed / total, 0 to 1.")),
		req("threshold", number("The least pass rate the run asked for (`--threshold`).")),
		req("ok", boolean("The pass rate reached the threshold.", false)),
		req("cases", arrayOf("", row)),
		opt("omitted", integer("Cases left out to keep the summary within 256 KiB.")),
	)
}

func (b *builder) addEvals(doc *openapi3.T) {
	doc.Tags = append(doc.Tags, &openapi3.Tag{Name: tagEvals, Description: "Harnest extension: the last run of " +
		"`harnest eval <folder> --redis-url ...` against this agent, which that command keeps in the store; the playground shows it."})
	doc.AddOperation("/evals/last", http.MethodGet, &openapi3.Operation{Tags: []string{tagEvals}, OperationID: "getLastEvalRun",
		Summary: "Read the last eval run", Description: "Harnest extension: the summary of the agent's last eval run.",
		Responses: replies(jsonReply(200, "The last run.", evalRunSchema()),
			b.failure(404, "No run is kept (`eval_run_not_found`): no `harnest eval --redis-url` ran against this store."))})
}
