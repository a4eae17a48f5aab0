package relay

import (
	"net/http"

	"github.com/harnest/harnest/relay/recipes"
)

// recipes returns the relay's recipes.
func (r *Relay) recipes() *recipes.Set { return r.recipeSet }

// registerRecipes mounts the recipe routes.
func (r *Relay) registerRecipes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+OwnerPrefix+"recipes", r.owner(r.handleRecipes))
}

// GET /owner/outside-agents/recipes: every recipe the relay offers, by id.
func (r *Relay) handleRecipes(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, map[string]any{"recipes": r.recipes().List()})
}
