package relay

import "net/http"

// registerRecipes mounts the recipe routes.
func (r *Relay) registerRecipes(mux *http.ServeMux) {}
