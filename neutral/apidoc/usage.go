package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Usage: turns, tokens and cost per day (package usageapi)

const tagUsage = "Usage"

const usageTagDescription = "Harnest extension: a user's usage per UTC day, per backend and model, counted from the " +
	"exact usage on the turns' final receipts by every replica. `server.limits.tokensPerDay` and `costPerDay` bound it: " +
	"once a user's day reached either, their new turns get 429 (`rate_limited`) with `Retry-After` until midnight UTC."

// usageCounts are a day's or a model's counts.
func usageCounts() []field {
	return []field{
		req("turns", integer("Turns whose final receipt was recorded (a turn that called several models counts on the first).")),
		req("inputTokens", integer("Tokens sent to the models.")),
		req("outputTokens", integer("Tokens the models produced.")),
		req("totalTokens", integer("Input plus output tokens: what `tokensPerDay` counts.")),
		req("costMicros", integer("Cost in micro-dollars, where the backend reports it: what `costPerDay` counts.")),
	}
}

func usageDaySchema() *openapi3.SchemaRef {
	model := object("One backend and model's usage of the day.", append([]field{
		req("backend", str("The agent's backend (`model`, `exec`, `echo`, ...).")),
		req("model", str("The model its calls named; empty when they named none (or the turn reported no usage).")),
	}, usageCounts()...)...)
	return object("One UTC day's usage.", append(append([]field{
		req("date", str("The UTC day, YYYY-MM-DD.")),
	}, usageCounts()...), req("byModel", arrayOf("Per backend and model, in that order.", model)))...)
}

func (b *builder) addUsage(doc *openapi3.T) {
	doc.Tags = append(doc.Tags, &openapi3.Tag{Name: tagUsage, Description: usageTagDescription})
	date := func(name, desc string) *openapi3.ParameterRef { return queryParam(name, desc, false, str("")) }
	limit := openapi3.NewIntegerSchema().WithMin(1).WithMax(100).WithDefault(31)
	params := openapi3.Parameters{
		date("from", "The oldest day, YYYY-MM-DD (UTC; default 29 days before `to`; at most 400 days ago)."),
		date("to", "The newest day, YYYY-MM-DD (UTC; default today)."),
		queryParam("limit", "Days a page, counting days without usage (1 to 100).", false, inline(limit)),
		cursorParam(),
		queryParam("user", "Owners only: the user whose usage to read (default: the caller's).", false, str("")),
		queryParam("all", "Owners only: everyone's usage together.", false, boolean("", false)),
	}
	page := object("A page of days, newest first.",
		req("user", nullableStr("Whose usage it is; null for everyone's (`all=true`).")),
		req("from", str("The oldest day of the query.")),
		req("to", str("The newest day of the query.")),
		req("days", arrayOf("The page's days that have usage, newest first.", usageDaySchema())),
		req("nextCursor", nullableStr("The next page's `cursor`; null on the last page.")))
	doc.AddOperation("/usage", http.MethodGet, &openapi3.Operation{Tags: []string{tagUsage}, OperationID: "getUsage",
		Summary: "Read usage per day and model",
		Description: "Harnest extension: the caller's turns, tokens and cost per UTC day and per backend and model; an " +
			"owner may read any user's (`user`) or everyone's (`all=true`). Reading a page costs one round trip to the store.",
		Parameters: params,
		Responses: replies(jsonReply(200, "A page of usage.", page),
			b.failure(400, "A parameter is refused (the detail names it: `from`, `to`, `limit`, `cursor`, `user` or `all`)."),
			b.failure(404, "`user` or `all` from someone not an owner."))})
}
