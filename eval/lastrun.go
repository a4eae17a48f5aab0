package eval

import (
	"context"
	"errors"
	"net/http"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/store"
)

// The last run of an agent's cases, kept in the store (harnest eval
// --redis-url) and served at GET /evals/last to the playground of every
// replica on that store.

// LastRunPath is the route of the agent's last run.
const LastRunPath = "/evals/last"

// KeepLastRun stores the report's summary as the agent's last run.
func KeepLastRun(ctx context.Context, st store.EvalRuns, r *Report) error {
	b, err := r.Summary().encodeWithin(store.MaxEvalRunBytes)
	if err != nil {
		return err
	}
	return st.PutEvalRun(ctx, r.Agent, b)
}

// LastRunHandler serves GET /evals/last: the agent's last run as a
// Summary, or 404 eval_run_not_found when none is kept.
func LastRunHandler(st store.EvalRuns, agent string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok, err := st.LastEvalRun(r.Context(), agent)
		switch {
		case err != nil && errors.Is(err, context.Canceled):
			return
		case err != nil:
			httpapi.Fail(w, http.StatusServiceUnavailable, "store_unavailable", "The state store did not answer; retry later")
		case !ok:
			httpapi.Fail(w, http.StatusNotFound, "eval_run_not_found",
				"No eval run is kept for this agent: run `harnest eval <folder> --redis-url <this store's URL>` to keep one")
		default:
			httpapi.WriteRaw(httpapi.NoStore(w), http.StatusOK, b)
		}
	})
}
